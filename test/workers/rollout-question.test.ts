/**
 * An answer naming its question (`question_seq`, which this release's dashboard, CLI prompt, `/mcp`
 * and client send) while a deploy rolls out. This release's Worker hands the question to the run
 * object as an argument of its own: an object of the release before ignores it and takes the answer
 * unchecked, as it took every one — not a 400 from its body parser. A Worker from before `approver`
 * hands the body over whole: this release's object reads the question out of it and checks it.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, events, inputsReceived, startRun, waitForRun } from './helpers';
import { olderObjects, postThrough } from './older-run-objects';

/** `POST /v1/runs/:id/input` to this release's Worker, its run objects `ns`. */
const answer = (ns: Env['PLAN_RUN'], runId: string, body: unknown) =>
  postThrough(ns, `/v1/runs/${runId}/input`, body);

/** A run whose step `f` failed and asks how to go on; the seq of that question. */
async function askingAboutFailure(): Promise<{ runId: string; seq: number }> {
  const key = `rollout-question-${crypto.randomUUID()}`;
  const runId = await startRun(
    { steps: [{ id: 'f', action: 'demo.flaky', parameters: { fail_times: 1, key } }] },
    { on_step_failure: 'replan', revision_strategy: 'ask_user', retry_failed_steps: 0 },
  );
  await waitForRun(runId, (r) => r.status === 'awaiting_input');
  const asked = (await events(runId)).filter((e) => e.event_type === 'InputRequested');
  return { runId, seq: asked.at(-1)!.seq as number };
}

describe('an answer with question_seq while a deploy rolls out', () => {
  it('is taken by a run object of the release before, which never reads the question', async () => {
    const { runId, seq } = await askingAboutFailure();
    // Even a question that is not the one asked: that object cannot tell, and answers as it did.
    const r = await answer(olderObjects(), runId, {
      input: { action: 'retry' },
      step_id: 'f',
      question_seq: seq + 7,
    });
    expect(r.status).toBe(200);
    expect((await waitForRun(runId)).status).toBe('completed');
  });

  it("is checked by this release's object, handed beside the body", async () => {
    const { runId, seq } = await askingAboutFailure();
    const stale = await answer(env.PLAN_RUN, runId, {
      input: { action: 'retry' },
      step_id: 'f',
      question_seq: seq + 7,
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.details).toMatchObject({
      reason: 'question_closed',
      question_seq: seq + 7,
      asked_now: seq,
    });
    const taken = await answer(env.PLAN_RUN, runId, {
      input: { action: 'retry' },
      step_id: 'f',
      question_seq: seq,
    });
    expect(taken.status).toBe(200);
    expect((await waitForRun(runId)).status).toBe('completed');
  });

  it('is read out of a body a Worker from before approver hands over whole, and checked', async () => {
    const { runId, seq } = await askingAboutFailure();
    const run = env.PLAN_RUN.getByName(runId);
    const stale = await run.input({ input: { action: 'skip' }, step_id: 'f', question_seq: seq + 1 });
    expect(stale).toMatchObject({ ok: false, error: { code: 'question_closed' } });
    expect(await inputsReceived(runId)).toEqual([]);
    const taken = await run.input({ input: { action: 'skip' }, question_seq: seq });
    expect(taken).toMatchObject({ ok: true });
    expect(await inputsReceived(runId)).toEqual([{ input: { action: 'skip' } }]);
    expect((await api('GET', `/v1/runs/${runId}`)).body.step_statuses.f).toBe('skipped');
  });
});
