/**
 * An answer naming the question it answers (`question_seq`, the seq of the `InputRequested` that
 * asked it: this release's dashboard, CLI prompt, `/mcp` and client send it beside `step_id`) while
 * a deploy rolls out, both ways (docs/upgrading.md, "Gradual deployments"):
 *
 *   split     THIS release's Worker hands the question to an OLD run object as an argument it
 *             ignores: an answer naming a question the run does not ask is taken unchecked (200), as
 *             every answer was there — not a 400 from that object's body parser
 *   reverse   an OLD Worker in front of THIS release's objects: one that checks an answer's keys
 *             refuses `question_seq` (400, nothing taken; the client sends the answer again without
 *             it); one from before `approver` (ae03508) hands the body over whole, and this release's
 *             object reads the question out of it: a closed one is refused (409, reason
 *             question_closed), the one asked is answered with `input` alone
 *
 * @example
 * await questionSeqToOldObjects(ctx); // split, its server up
 * await questionSeqThroughOldWorker(ctx, oldWorkerHas(oldRoot)); // reverse, its server up
 */
import { ENDED } from './runs.mjs';

/** Starts a run of one question `id` and waits until it is asked; the run id and the question's seq. */
async function asked({ api, runs }, id) {
  const started = await api.call('POST', '/v1/runs', { plan: runs.question(id) });
  const runId = started.body.run_id;
  await runs.reaches(runId, 'awaiting_input');
  const events = (await api.call('GET', `/v1/runs/${runId}/events`)).body.events ?? [];
  return { runId, seq: events.findLast((e) => e.event_type === 'InputRequested')?.seq };
}

/** split: this release's Worker, an old run object. */
export async function questionSeqToOldObjects(ctx) {
  const { call, check } = ctx.api;
  const { runId, seq } = await asked(ctx, 'seq_old');
  // A question the run does not ask: that object cannot tell, and answers as it always did.
  const sent = await call('POST', `/v1/runs/${runId}/input`, {
    input: 'yes',
    step_id: 'seq_old',
    question_seq: seq + 7,
  });
  const done = await ctx.runs.reaches(runId, ENDED);
  check(
    'split: an answer with a question_seq the run does not ask, sent to the old object: taken unchecked (200); completed with the input alone',
    typeof seq === 'number' &&
      sent.status === 200 &&
      done.status === 'completed' &&
      done.step_results?.seq_old === 'yes',
    `seq ${seq}: ${sent.status} ${JSON.stringify(sent.body).slice(0, 160)} ${done.status} ${JSON.stringify(done.step_results ?? {})}`,
  );
}

/** reverse: an old Worker, this release's run objects; `has`: what that Worker knows (old-release.mjs). */
export async function questionSeqThroughOldWorker(ctx, has) {
  const { call, check } = ctx.api;
  const { runId, seq } = await asked(ctx, 'r_seq');
  const input = (body) => call('POST', `/v1/runs/${runId}/input`, body);
  const waits = async () => (await ctx.runs.runOf(runId)).status === 'awaiting_input';
  const closed = await input({ input: 'yes', step_id: 'r_seq', question_seq: seq + 7 });
  if (has.stepAnswerChecked) {
    check(
      'reverse: an answer with question_seq: 400 invalid_request naming the key (the old Worker’s refusal); not taken',
      closed.status === 400 &&
        closed.body.error?.code === 'invalid_request' &&
        closed.body.error?.message?.includes('question_seq') &&
        (await waits()),
      `${closed.status} ${JSON.stringify(closed.body).slice(0, 200)}`,
    );
  } else {
    check(
      'reverse: an answer naming a question the run does not ask, in a body the old Worker hands over whole: 409 question_closed, not taken',
      typeof seq === 'number' &&
        closed.status === 409 &&
        closed.body.error?.details?.reason === 'question_closed' &&
        closed.body.error?.details?.asked_now === seq &&
        (await waits()),
      `seq ${seq}: ${closed.status} ${JSON.stringify(closed.body).slice(0, 200)}`,
    );
  }
  // What the client does after that 400; through a Worker from before `approver`, the question asked.
  const sent = await input(
    has.stepAnswerChecked
      ? { input: 'yes', step_id: 'r_seq' }
      : { input: 'yes', step_id: 'r_seq', question_seq: seq },
  );
  const done = await ctx.runs.reaches(runId, ENDED);
  const received = (await call('GET', `/v1/runs/${runId}/events`)).body.events?.filter(
    (e) => e.event_type === 'InputReceived',
  );
  check(
    has.stepAnswerChecked
      ? 'reverse: the answer sent again without question_seq: taken (200); completed with it, once'
      : 'reverse: an answer naming the question asked, in a body handed over whole: taken (200); completed with the input alone, once',
    sent.status === 200 &&
      done.status === 'completed' &&
      done.step_results?.r_seq === 'yes' &&
      received?.length === 1,
    `${sent.status} ${done.status} ${JSON.stringify(done.step_results ?? {})} ${received?.length} answer(s)`,
  );
}
