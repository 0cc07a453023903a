/**
 * During a gradual deployment a Worker of the release before `approver` calls this release's run
 * objects: it hands a body `{input, step_id, approver}` — what this release's clients send — to the
 * object's `input()` whole, as its only argument. The real object reads it as this release's Worker
 * reads the body: the answer is the input, for the step it names, and who answered is recorded.
 * Through the real Worker, an answer that is an object with an `approver` key of its own is left
 * whole. (scripts/rollout-rehearsal.mjs runs the older release's own Worker in front.)
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, waitForRun, askingRun as asking, inputsReceived as received } from './helpers';

describe('input() called as a Worker from before approver calls it', () => {
  it('takes the body handed over whole as the answer to its step, by the name in it', async () => {
    const runId = await asking();
    const run = env.PLAN_RUN.getByName(runId);
    const taken = await run.input({ input: 'yes', step_id: 'ask', approver: 'Ada' });
    expect(taken).toMatchObject({ ok: true });
    expect(await received(runId)).toEqual([{ input: 'yes', step_id: 'ask', answered_by: 'Ada' }]);
    const done = await waitForRun(runId);
    expect(done.status).toBe('completed');
    expect(done.step_results).toEqual({ ask: 'yes' });
  });

  it('refuses a body with approver and no answer (invalid_request), and the run still waits', async () => {
    const runId = await asking();
    const r = await env.PLAN_RUN.getByName(runId).input({ approver: 'Ada' });
    expect(r).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', message: expect.stringContaining('the answer goes beside it') },
    });
    expect((await api('GET', `/v1/runs/${runId}`)).body.status).toBe('awaiting_input');
    expect(await received(runId)).toEqual([]);
  });
});

describe('an answer through this release’s Worker', () => {
  it('is left whole when it is an object with an approver key of its own', async () => {
    const runId = await asking();
    const answer = { input: 'x', approver: 'inside the answer' };
    const r = await api('POST', `/v1/runs/${runId}/input`, { input: answer, step_id: 'ask' });
    expect(r.status).toBe(200);
    const done = await waitForRun(runId);
    expect(done.step_results).toEqual({ ask: answer });
    expect(await received(runId)).toEqual([{ input: answer, step_id: 'ask' }]);
  });

  it('is left whole without a step_id too: the Worker says it read approver itself, by how it let the caller in', async () => {
    const runId = await asking();
    const answer = { input: 'x', approver: 'inside the answer' };
    const r = await api('POST', `/v1/runs/${runId}/input`, { input: answer });
    expect(r.status).toBe(200);
    const done = await waitForRun(runId);
    expect(done.step_results).toEqual({ ask: answer });
    const [got] = await received(runId);
    expect(got).toMatchObject({ input: answer });
    expect(got).not.toHaveProperty('answered_by');
  });
});
