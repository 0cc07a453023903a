/**
 * edgeplan/client against the real Worker, sending again by itself what the Worker refused for now:
 * a createRun that a run object still on the release before refused (`503 deploy_in_progress`,
 * docs/upgrading.md) is sent again with the same Idempotency-Key once the object runs this release,
 * and creates the run once; a GET the rate limit refused (`429 rate_limited`) is sent again. The
 * Worker's answers pass through as they are, but for their Retry-After, asserted and then shortened
 * to 1 s so the test does not sit out a minute (the waits themselves: test/unit/client-retry.test.ts).
 */
import { createExecutionContext, evictDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createClient, type RetryNotice } from '../../src/client';
import { readDemoCounter } from '../../src/executor/tools/demo-counters-client';
import worker from '../../src/worker';
import { waitForRun } from './helpers';
import { olderObjects } from './older-run-objects';

type Seen = { method: string; path: string; key: string | null; status: number; retryAfter: string | null };

/** A client of this release's Worker on `bindings()`, and what each of its requests was answered. */
function clientOf(bindings: () => Env) {
  const seen: Seen[] = [];
  const notices: RetryNotice[] = [];
  const client = createClient({
    baseUrl: 'http://edgeplan.test',
    onRetry: (n) => notices.push(n),
    fetch: async (input, init) => {
      const req = new Request(input, init);
      const ctx = createExecutionContext();
      const res = await worker.fetch(req, bindings(), ctx);
      await waitOnExecutionContext(ctx);
      const retryAfter = res.headers.get('retry-after');
      const { pathname } = new URL(req.url);
      seen.push({
        method: req.method,
        path: pathname,
        key: req.headers.get('idempotency-key'),
        status: res.status,
        retryAfter,
      });
      if (retryAfter === null) return res;
      const headers = new Headers(res.headers);
      headers.set('retry-after', '1');
      return new Response(res.body, { status: res.status, headers });
    },
  });
  return { client, seen, notices };
}

describe('edgeplan/client and the Worker’s refusals for now', () => {
  it('sends createRun refused 503 deploy_in_progress again with the same key, and the run is created once', async () => {
    const counter = `client-retry-${crypto.randomUUID()}`;
    let objects = olderObjects();
    const { client, seen, notices } = clientOf(() => ({ ...env, PLAN_RUN: objects }));
    const body = {
      plan: {
        goal: 'count once',
        steps: [{ id: 'count', action: 'demo.counter', parameters: { key: counter } }],
      },
      config: { require_plan_approval: true, approval: { revisions: 'ask' as const } },
    };
    const created = client.createRun(body);
    // Refused by the older object; the rollout then reaches it (a deploy ends its instance).
    await expect.poll(() => notices.length).toBe(1);
    const refusal = notices[0]!.error;
    expect(refusal).toMatchObject({ status: 503, code: 'deploy_in_progress' });
    const runId = (refusal.details as { run_id: string }).run_id;
    await evictDurableObject(env.PLAN_RUN.getByName(runId));
    objects = env.PLAN_RUN;

    const run = await created;
    expect(run).toMatchObject({ run_id: runId, status: 'awaiting_approval' });
    expect(seen.map((s) => [s.status, s.retryAfter])).toEqual([
      [503, '60'],
      [201, null],
    ]);
    expect(seen[1]!.key).toBe(seen[0]!.key);
    await client.approve(runId);
    await waitForRun(runId);
    expect(await readDemoCounter(env, counter)).toBe(1);
    const listed = await env.DB.prepare('SELECT run_id FROM runs WHERE run_id = ?').bind(runId).all();
    expect(listed.results).toHaveLength(1);
  });

  it('sends a GET the rate limit refused (429 rate_limited, Retry-After) again, and answers with the run', async () => {
    let allowed = 0;
    const limiter: RateLimit = { limit: () => Promise.resolve({ success: allowed++ !== 1 }) };
    const { client, seen, notices } = clientOf(() => ({ ...env, RATE_LIMITER: limiter }));
    const { run_id } = await client.createRun({
      plan: { goal: 'g', steps: [{ id: 'a', action: 'demo.echo' }] },
    });
    const run = await client.getRun(run_id);
    expect(run.run_id).toBe(run_id);
    expect(seen.map((s) => [s.method, s.status, s.retryAfter])).toEqual([
      ['POST', 201, null],
      ['GET', 429, '60'],
      ['GET', 200, null],
    ]);
    expect(notices.map((n) => [n.method, n.error.code, n.retry])).toEqual([['GET', 'rate_limited', 1]]);
  });
});
