/**
 * A goal run started with an `Idempotency-Key` (SPEC §6): a retry, or requests sent at once, find the
 * run the first started — the goal is planned once, by one LLM call, not once per request.
 */
import { exports } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { waitForRun, type Json } from '../workers/helpers';

afterEach(() => setLlmFetch(null));

async function create(body: unknown, key: string) {
  const res = await exports.default.fetch(
    new Request('http://edgeplan.test/v1/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify(body),
    }),
  );
  return {
    status: res.status,
    body: await res.json<Json>(),
    replayed: res.headers.get('Idempotent-Replayed'),
  };
}

describe('a goal run with an Idempotency-Key', () => {
  it('is planned once however many requests with the key arrive, at once or later', async () => {
    const step = {
      id: 'a',
      description: 'echo',
      action: 'demo.echo',
      parameters: { v: 1 },
      dependencies: [],
    };
    // One answer only: a second planning call would find none and fail its run.
    const llm = scriptedLlm([JSON.stringify({ steps: [step] })]);
    setLlmFetch(llm.fetch);
    const key = `goal-${crypto.randomUUID()}`;
    const body = { goal: 'echo once', config: { require_plan_approval: true } };
    const racing = await Promise.all([create(body, key), create(body, key)]);
    expect(racing.map((r) => r.status)).toEqual([201, 201]);
    const runId = racing[0].body.run_id as string;
    expect(racing[1].body.run_id).toBe(runId);
    await waitForRun(runId, (r) => r.status === 'awaiting_approval');
    const later = await create(body, key);
    expect([later.status, later.replayed, later.body.run_id]).toEqual([201, 'true', runId]);
    expect(later.body.status).toBe('awaiting_approval');
    expect(llm.sent).toHaveLength(1);
  });
});
