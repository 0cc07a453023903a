/**
 * The forward half of a rollout: THIS release's Worker in front of run objects still on the OLD
 * release (split), then this release alone on the same state (finished), then the old release alone
 * (back, a rollback) reading what this release wrote. Each phase starts its server with `serve`
 * and stops it with `stop` (reading the objects' SQLite files only once it is down).
 *
 *   split     a run with approval.revisions "ask" is refused with 503 deploy_in_progress and removed
 *             (no key, and with an Idempotency-Key, sent twice); a run without "ask" is created by
 *             the old object and runs to completion through this release's queue consumer
 *             a human.input step answered through this release's Worker with an `approver` (a third
 *             argument of the object's `input`, which the old object ignores): taken, the run completes;
 *             /events and /wait of a run on the old object, whose object has no `progress()`
 *             an answer naming a question the run does not ask (`question_seq`), taken unchecked
 *             by the old object (rollout/question-seq.mjs)
 *   finished  the keyed request creates its run (201), stored in format 2; sent again, it is replayed;
 *             a question answered with an `approver` records it on InputReceived as `answered_by`
 *   back      the old release alone (a rollback) reads that run: its snapshot, its events with the
 *             key it does not know kept as stored, and its state replayed to the answer
 *
 * That the objects ran the old code in split is what its first check shows: this release's object
 * would have confirmed the format and created the run.
 */
import { questionSeqToOldObjects } from './question-seq.mjs';
import { ENDED, dispatches, onQueue, QUEUED } from './runs.mjs';

const ASK = { require_plan_approval: true, approval: { revisions: 'ask' } };

function refusedAsRollingOut({ check }, name, r) {
  check(
    `${name}: 503 deploy_in_progress, Retry-After 60`,
    r.status === 503 && r.body.error?.code === 'deploy_in_progress' && r.headers.get('retry-after') === '60',
    `${r.status} ${r.body.error?.code ?? JSON.stringify(r.body).slice(0, 200)}`,
  );
  return r.body.error?.details?.run_id;
}

/** split: this release's Worker, the old release's objects. Returns what the later phases look for. */
export async function split({ api, runs, files, tag, serve, stop }) {
  const { call, check } = api;
  const key = `${tag}-key`;
  await serve();
  const plain = await call('POST', '/v1/runs', { plan: runs.plan('a'), config: ASK });
  const removed = refusedAsRollingOut(api, 'split "ask" without a key', plain);
  check(
    'split "ask" without a key: the run is gone',
    (await call('GET', `/v1/runs/${removed}`)).status === 404,
  );
  const listed = await call('GET', '/v1/runs?limit=100');
  check(
    'split "ask" without a key: not in the run list',
    listed.status === 200 &&
      Array.isArray(listed.body.runs) &&
      !listed.body.runs.some((r) => r.run_id === removed),
  );

  const first = await call(
    'POST',
    '/v1/runs',
    { plan: runs.plan('k'), config: ASK },
    { 'Idempotency-Key': key },
  );
  const keyedRun = refusedAsRollingOut(api, 'split "ask" with a key', first);
  const again = await call(
    'POST',
    '/v1/runs',
    { plan: runs.plan('k'), config: ASK },
    { 'Idempotency-Key': key },
  );
  refusedAsRollingOut(api, 'split "ask" with a key, sent again', again);
  check(
    'split "ask" with a key: the run is gone',
    (await call('GET', `/v1/runs/${keyedRun}`)).status === 404,
  );

  const asked = await call('POST', '/v1/runs', {
    plan: runs.plan('once'),
    config: { ...QUEUED, require_plan_approval: true },
  });
  check('split without "ask": created by the old object', asked.status === 201, `${asked.status}`);
  const id = asked.body.run_id;
  await runs.reaches(id, 'awaiting_approval');
  const approved = await call('POST', `/v1/runs/${id}/approval`, { decision: 'approve' });
  check('split without "ask": approved', approved.status === 200, `${approved.status}`);
  const done = await runs.reaches(id, ENDED);
  const log = (await call('GET', `/v1/runs/${id}/events`)).body.events ?? [];
  check(
    'split without "ask": completed through this release’s consumer (queued, not moved inline), counted once',
    done.status === 'completed' && done.step_results?.once?.value === 1 && onQueue(log, 1),
    `${done.status} ${JSON.stringify(done.step_results ?? {})} ${JSON.stringify(dispatches(log))}`,
  );
  const old = await runs.answered('asked_old', { approver: 'Ada' });
  check(
    'split: an answer with an approver, sent to the old object, taken; the run completes',
    old.sent.status === 200 && old.done.status === 'completed' && old.done.step_results?.asked_old === 'yes',
    `${old.sent.status} ${old.done.status}`,
  );
  // This release's reads that ask an object for progress(), which the old release's does not have:
  // read through its snapshot instead, not a 500.
  const page = await call('GET', `/v1/runs/${id}/events?after=1`);
  check(
    'split: GET /events?after=1 of a run on the old object answers its events',
    page.status === 200 && Array.isArray(page.body.events) && page.body.events[0]?.seq === 2,
    `${page.status} ${JSON.stringify(page.body).slice(0, 200)}`,
  );
  const past = await call('GET', `/v1/runs/${id}/events?after=100000`);
  check(
    'split: GET /events with an after past its last event is 400 with last_seq',
    past.status === 400 && past.body.error?.details?.last_seq === done.last_seq,
    `${past.status} ${JSON.stringify(past.body).slice(0, 200)}`,
  );
  const waited = await call('GET', `/v1/runs/${id}/wait?until=terminal&timeout_s=5`);
  check(
    'split: GET /wait of an ended run on the old object answers it at once',
    waited.status === 200 && waited.body.timed_out === false && waited.body.run?.status === 'completed',
    `${waited.status} ${JSON.stringify(waited.body).slice(0, 200)}`,
  );
  await questionSeqToOldObjects({ api, runs });
  await stop();
  const oldAnswer = files.storedPayload(old.runId, 'InputReceived');
  check(
    'split: the old object records the answer without who answered (it does not know answered_by)',
    oldAnswer?.input === 'yes' && oldAnswer?.answered_by === undefined,
    JSON.stringify(oldAnswer),
  );
  return { key, removed, keyedRun };
}

/** finished: this release alone, on the same state. Returns the run answered with an approver. */
export async function finished({ api, runs, serve, stop }, { key, removed, keyedRun }) {
  const { call, check } = api;
  await serve();
  const body = { plan: runs.plan('k'), config: ASK };
  const created = await call('POST', '/v1/runs', body, { 'Idempotency-Key': key });
  check(
    'finished "ask" with the key: created, under the key’s run id',
    created.status === 201 && created.body.run_id === keyedRun && created.body.status === 'awaiting_approval',
    `${created.status} ${JSON.stringify(created.body).slice(0, 200)}`,
  );
  const replayed = await call('POST', '/v1/runs', body, { 'Idempotency-Key': key });
  check(
    'finished "ask" with the key: sent again, replayed',
    replayed.status === 201 && replayed.headers.get('idempotent-replayed') === 'true',
    `${replayed.status}`,
  );
  check(
    'finished "ask" without a key: the removed run stays gone',
    (await call('GET', `/v1/runs/${removed}`)).status === 404,
  );
  const fresh = await runs.answered('asked_new', { approver: 'Ada' });
  const recorded = (await call('GET', `/v1/runs/${fresh.runId}/events`)).body.events?.find(
    (e) => e.event_type === 'InputReceived',
  );
  check(
    'finished: an answer with an approver records it as answered_by',
    fresh.done.status === 'completed' && recorded?.payload?.answered_by === 'Ada',
    JSON.stringify(recorded?.payload),
  );
  await stop();
  return { answeredRun: fresh.runId };
}

/** back: the old release alone (a rollback) reads what this release wrote. */
export async function back({ api, files, serve, stop }, { keyedRun, answeredRun }) {
  const { call, check } = api;
  await serve();
  const served = await call('GET', `/v1/runs/${answeredRun}`);
  check(
    'back: the old release serves the run answered with answered_by',
    served.status === 200 &&
      served.body.status === 'completed' &&
      served.body.step_results?.asked_new === 'yes',
    `${served.status} ${served.body.status ?? JSON.stringify(served.body).slice(0, 200)}`,
  );
  const events = await call('GET', `/v1/runs/${answeredRun}/events`);
  const kept = (events.body.events ?? []).find((e) => e.event_type === 'InputReceived');
  check(
    'back: its events, answered_by kept as stored',
    events.status === 200 && kept?.payload?.answered_by === 'Ada',
    `${events.status} ${JSON.stringify(kept?.payload)}`,
  );
  const replay = await call('GET', `/v1/runs/${answeredRun}/state?at=${kept?.seq ?? 1}`);
  check(
    'back: its state replayed through the answer',
    replay.status === 200,
    `${replay.status} ${JSON.stringify(replay.body).slice(0, 200)}`,
  );
  await stop();
  check(
    'finished "ask" with the key: stored in format 2',
    files.stampOf(keyedRun) === '2',
    String(files.stampOf(keyedRun)),
  );
}
