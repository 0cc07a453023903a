/**
 * An answer names the question it answers (`question_seq`: the seq of the InputRequested event that
 * asked it). Two people answer a failed step's question: the first says retry, the step runs again,
 * fails and asks again — and the second answer, arriving late, is refused `409 question_closed`
 * saying what became of the question it named (answered, by whom, with what; the question the step
 * asks now), instead of answering the new question. An answer without it answers as before.
 */
import { abortAllDurableObjects, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, askingRun, events, inputsReceived, startRun, waitForRun, type Json } from './helpers';

/** A run whose step `f` fails (always) and asks how to go on; its questions' seqs, oldest first. */
async function askingAboutFailure() {
  const key = `question-${crypto.randomUUID()}`;
  const runId = await startRun(
    { steps: [{ id: 'f', action: 'demo.flaky', parameters: { fail_times: 99, key } }] },
    { on_step_failure: 'replan', revision_strategy: 'ask_user', retry_failed_steps: 0 },
  );
  await waitForRun(runId, (r) => r.status === 'awaiting_input');
  const questions = async () =>
    (await events(runId)).filter((e) => e.event_type === 'InputRequested').map((e) => e.seq as number);
  return { runId, questions };
}

const answer = (runId: string, body: Json) => api('POST', `/v1/runs/${runId}/input`, body);

describe('an answer that names its question', () => {
  it('arriving after a retry asked again, is refused 409 question_closed and answers nothing', async () => {
    const { runId, questions } = await askingAboutFailure();
    const [first] = await questions();
    // Ada's retry wins: the step runs again, fails, and asks a second question.
    const retry = { input: { action: 'retry' }, step_id: 'f', question_seq: first, approver: 'Ada' };
    expect((await answer(runId, retry)).status).toBe(200);
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    const [, second] = await questions();
    expect(second).toBeGreaterThan(first!);

    // Bob's skip, sent for the first question, arrives now.
    const late = await answer(runId, {
      input: { action: 'skip' },
      step_id: 'f',
      question_seq: first,
      approver: 'Bob',
    });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({
      code: 'question_closed',
      details: {
        reason: 'question_closed',
        question_seq: first,
        step_id: 'f',
        status: 'awaiting_input',
        asked_now: second,
        decided: 'retry',
        answered_by: 'Ada',
      },
    });
    expect(late.body.error.message).toBe(
      `Question ${first} of run ${runId} (step "f") was answered already by Ada (retry: retry it); step "f" asks again, as question ${second}: read it and answer that one. This answer was not taken.`,
    );
    // Nothing was taken: the step still waits on its second question, answered by Ada alone.
    expect((await api('GET', `/v1/runs/${runId}`)).body.status).toBe('awaiting_input');
    expect((await inputsReceived(runId)).map((p) => p.answered_by)).toEqual(['Ada']);

    // The second question, named, is answered.
    const skip = { input: { action: 'skip' }, step_id: 'f', question_seq: second, approver: 'Bob' };
    expect((await answer(runId, skip)).status).toBe(200);
    const run = await waitForRun(runId);
    expect(run.step_statuses.f).toBe('skipped');
    // Once the run ended, the first question's answer is told so too.
    const after = await answer(runId, { input: { action: 'abort' }, question_seq: first });
    expect([after.status, after.body.error.code, after.body.error.details.asked_now]).toEqual([
      409,
      'question_closed',
      null,
    ]);
  });

  it('without question_seq is taken for whatever the run asks when it arrives, as before', async () => {
    const { runId, questions } = await askingAboutFailure();
    expect((await answer(runId, { input: { action: 'retry' }, step_id: 'f' })).status).toBe(200);
    // The retry answered the first question; the step failed again and asks a second.
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    expect(await questions()).toHaveLength(2);
    expect((await answer(runId, { input: { action: 'skip' }, step_id: 'f' })).status).toBe(200);
    expect((await waitForRun(runId)).step_statuses.f).toBe('skipped');
  });

  it('refuses a question_seq that is no whole number, or sent without input, 400 before anything is taken', async () => {
    const { runId, questions } = await askingAboutFailure();
    const [seq] = await questions();
    for (const body of [
      { input: 'retry', question_seq: 'one' },
      { input: 'retry', question_seq: 0 },
      { input: 'retry', question_seq: 1.5 },
      { question_seq: seq },
    ]) {
      const r = await answer(runId, body);
      expect([r.status, r.body.error.code]).toEqual([400, 'invalid_request']);
      expect(r.body.error.message).toContain('question_seq');
    }
    expect(await inputsReceived(runId)).toEqual([]);
    expect((await answer(runId, { input: { action: 'skip' }, question_seq: seq })).status).toBe(200);
  });

  it('refuses a question_seq naming an event that was no question 409, saying what question_seq is', async () => {
    const { runId, questions } = await askingAboutFailure();
    const [asked] = await questions();
    const failed = (await events(runId)).find((e) => e.event_type === 'StepFailed')!.seq as number;
    const r = await answer(runId, { input: { action: 'skip' }, question_seq: failed });
    expect([r.status, r.body.error.code]).toEqual([409, 'question_closed']);
    expect(r.body.error.message).toBe(
      `Question ${failed} of run ${runId} is not open (question_seq is the seq of the InputRequested event that asked it); run ${runId} asks question ${asked} (step "f") now. This answer was not taken.`,
    );
    expect(await inputsReceived(runId)).toEqual([]);
  });
});

describe('a person’s question (human.input) answered', () => {
  it('refuses a late answer naming it 409 question_closed, saying who answered and when', async () => {
    const runId = await askingRun();
    const question = async () =>
      (await events(runId)).findLast((e) => e.event_type === 'InputRequested')?.seq as number;
    const seq = await question();
    const ada = { input: 'yes', step_id: 'ask', question_seq: seq, approver: 'Ada' };
    expect((await answer(runId, ada)).status).toBe(200);
    const received = (await events(runId)).find((e) => e.event_type === 'InputReceived');
    const at = received?.timestamp as string;
    expect(at).toMatch(/^\d{4}-/);

    const late = await answer(runId, { input: 'no', step_id: 'ask', question_seq: seq, approver: 'Bob' });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({
      code: 'question_closed',
      details: { question_seq: seq, step_id: 'ask', answered_by: 'Ada', answered_at: at },
    });
    expect(late.body.error.message).toContain(
      `Question ${seq} of run ${runId} (step "ask") was answered already by Ada at ${at}; run ${runId} is `,
    );
    // Without question_seq, naming the step: told the same who and when.
    const again = await answer(runId, { input: 'no', step_id: 'ask', approver: 'Bob' });
    expect(again.status).toBe(409);
    expect(again.body.error.details).toMatchObject({ answered_by: 'Ada', answered_at: at });
    expect(again.body.error.message).toContain(`was answered already by Ada at ${at}`);
    expect((await inputsReceived(runId)).map((p) => p.answered_by)).toEqual(['Ada']);
  });
});

describe('a question an older release asked (its row keeps no seq)', () => {
  it('is answered as before, whatever question_seq says; the next question it asks is checked', async () => {
    const { runId, questions } = await askingAboutFailure();
    const [first] = await questions();
    // The run's meta row as a release before question_seq wrote it: `awaiting` without its seq.
    await runInDurableObject(env.PLAN_RUN.getByName(runId), (_i, state) => {
      const sql = state.storage.sql;
      const row = sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'run'").one();
      const run = JSON.parse(row.value) as Json;
      expect(run.awaiting).toMatchObject({ step_id: 'f', seq: first });
      delete run.awaiting.seq;
      sql.exec("UPDATE meta SET value = ? WHERE key = 'run'", JSON.stringify(run));
    });
    await abortAllDurableObjects();
    const retry = { input: { action: 'retry' }, step_id: 'f', question_seq: first! + 50 };
    expect((await answer(runId, retry)).status).toBe(200);
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    const [, second] = await questions();
    const late = await answer(runId, { ...retry, question_seq: first });
    expect([late.status, late.body.error.details.asked_now]).toEqual([409, second]);
  });
});
