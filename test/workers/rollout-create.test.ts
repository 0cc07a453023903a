/**
 * A deploy rolling out (docs/upgrading.md, "Gradual deployments"): this release's Worker creates a
 * run with `approval.revisions: "ask"` in an object still on the release before, which would stamp it
 * format 1 and ask for the approval of its first plan only. The Worker sees no confirmed format in
 * the object's answer, removes the run — nothing of it ran — and answers `503 deploy_in_progress`
 * with `Retry-After`; once the object runs this release, the same request (and Idempotency-Key)
 * creates the run. Through the real Worker, real run objects, D1 and the demo counter's object.
 *
 * The older object is this release's object behind a shim of the older release's create answer
 * (ae03508's plan-run.ts `create`): no `format` in its answer, an Idempotency-Key's fingerprint
 * ignored (no replay: `run_exists`), and `run_exists` for a run deleted a moment ago. Its cancel and
 * DELETE are the real ones. The older release's own code is run by scripts/upgrade-rehearsal.mjs.
 */
import {
  createExecutionContext,
  evictDurableObject,
  runInDurableObject,
  waitOnExecutionContext,
} from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import worker from '../../src/worker';
import { readDemoCounter } from '../../src/executor/tools/demo-counters-client';
import { FORMAT_KEY } from '../../src/durable/storage-format';
import { startChildRun } from '../../src/durable/child-runs';
import { workerToolRegistry } from '../../src/durable/tools';
import { childRunId } from '../../src/engine/child-run';
import { ToolError } from '../../src/errors';
import { api, type Json } from './helpers';
import { olderObjects } from './older-run-objects';

/** `POST /v1/runs` to this release's Worker, its run objects `ns`. */
async function create(ns: Env['PLAN_RUN'], body: unknown, key?: string) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request('http://edgeplan.test/v1/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'Idempotency-Key': key } : {}) },
      body: JSON.stringify(body),
    }),
    { ...env, PLAN_RUN: ns },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return {
    status: res.status,
    body: await res.json<Json>(),
    retryAfter: res.headers.get('Retry-After'),
    replayed: res.headers.get('Idempotent-Replayed'),
  };
}

/** A run whose one step counts how often it ran, asking for the approval of every plan version. */
function askingRun(counter: string, revisions: 'ask' | 'run' = 'ask') {
  return {
    plan: {
      goal: 'count once',
      steps: [{ id: 'count', action: 'demo.counter', parameters: { key: counter } }],
    },
    config: { require_plan_approval: true, approval: { revisions } },
  };
}

/** The run object's storage format stamp (storage-format.ts). */
async function storedFormat(runId: string): Promise<unknown> {
  return runInDurableObject(env.PLAN_RUN.getByName(runId), (_o, state) => {
    const rows = state.storage.sql.exec('SELECT value FROM meta WHERE key = ?', FORMAT_KEY).toArray();
    return rows[0]?.value;
  });
}

async function indexRows(runId: string): Promise<number> {
  const row = await env.DB.prepare('SELECT count(*) AS n FROM runs WHERE run_id = ?')
    .bind(runId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

describe('a run with approval.revisions "ask" created while a deploy rolls out', () => {
  it('is removed when an older object took it, and answered 503 deploy_in_progress with Retry-After', async () => {
    const counter = `rollout-${crypto.randomUUID()}`;
    const r = await create(olderObjects(), askingRun(counter));
    expect(r.status).toBe(503);
    expect(r.retryAfter).toBe('60');
    expect(r.body.error.code).toBe('deploy_in_progress');
    expect(r.body.error.message).toContain('A deploy of edgeplan is rolling out');
    expect(r.body.error.message).toContain('Send the same request again in 60 s');
    const runId = r.body.error.details.run_id as string;
    expect(r.body.error.details).toMatchObject({ reason: 'deploy_in_progress', retry_after_s: 60 });
    expect(runId).toMatch(/^run_/);
    // Nothing of it is left to approve, and nothing of it ran.
    expect((await api('GET', `/v1/runs/${runId}`)).status).toBe(404);
    expect(await indexRows(runId)).toBe(0);
    expect(await readDemoCounter(env, counter)).toBe(0);
  });

  it('with an Idempotency-Key: refused while the object is older, created by a retry once it runs this release', async () => {
    const counter = `rollout-${crypto.randomUUID()}`;
    const key = `key-${crypto.randomUUID()}`;
    const first = await create(olderObjects(), askingRun(counter), key);
    expect([first.status, first.body.error.code]).toEqual([503, 'deploy_in_progress']);
    const runId = first.body.error.details.run_id as string;
    // The same object, still on the older release, remembers the run it removed: refused again.
    const meanwhile = await create(olderObjects(), askingRun(counter), key);
    expect([meanwhile.status, meanwhile.body.error.code, meanwhile.retryAfter]).toEqual([
      503,
      'deploy_in_progress',
      '60',
    ]);
    expect(meanwhile.body.error.details.run_id).toBe(runId);
    expect((await api('GET', `/v1/runs/${runId}`)).status).toBe(404);

    // The rollout reaches the object: a deploy ends its instance, and this release's code loads it.
    await evictDurableObject(env.PLAN_RUN.getByName(runId));
    const retried = await create(env.PLAN_RUN, askingRun(counter), key);
    expect([retried.status, retried.replayed, retried.body.run_id]).toEqual([201, null, runId]);
    expect(retried.body.status).toBe('awaiting_approval');
    // Stored by this release, in the format an older one refuses rather than serve it unasked.
    expect(await storedFormat(runId)).toBe('2');
    // And the key is an ordinary key again: the same request replays the run.
    const replay = await create(env.PLAN_RUN, askingRun(counter), key);
    expect([replay.status, replay.replayed, replay.body.run_id]).toEqual([201, 'true', runId]);
    expect(await readDemoCounter(env, counter)).toBe(0);
  });

  it('as a child run, on an older object: the parent step’s attempt fails retryable, no child left', async () => {
    const parent = { run_id: `run_${crypto.randomUUID().replaceAll('-', '')}`, step_id: 'child', attempt: 1 };
    const { plan, config } = askingRun(`rollout-${crypto.randomUUID()}`);
    const older = { ...env, PLAN_RUN: olderObjects() };
    const err = await startChildRun(older, workerToolRegistry(env), parent, { plan, config }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ToolError);
    expect([(err as ToolError).code, (err as ToolError).retryable]).toEqual(['deploy_in_progress', true]);
    expect((await api('GET', `/v1/runs/${await childRunId(parent)}`)).status).toBe(404);
  });

  it('is created as before when this release’s object takes it (it confirms format 2)', async () => {
    const r = await create(env.PLAN_RUN, askingRun(`rollout-${crypto.randomUUID()}`));
    expect([r.status, r.body.status]).toEqual([201, 'awaiting_approval']);
  });

  it('without "ask", is created by an older object as before: that release serves it as configured', async () => {
    const r = await create(olderObjects(), askingRun(`rollout-${crypto.randomUUID()}`, 'run'));
    expect([r.status, r.body.status]).toEqual([201, 'awaiting_approval']);
    expect(await storedFormat(r.body.run_id as string)).toBe('1');
  });
});
