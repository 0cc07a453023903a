/**
 * reverse: the OLD release's Worker in front of THIS release's run objects — what a gradual
 * deployment does to a request routed to the old version that reaches an object assigned the new one
 * (docs/upgrading.md, "Gradual deployments"). What a user does during a rollout, through the old
 * front: runs created (with and without an Idempotency-Key, with approval decided by its link and by
 * the API, with a question answered — with `approver`, with `question_seq` (rollout/question-seq.mjs)
 * —, with parallel steps through the old release's queue consumer),
 * cancelled, listed, read (the run, /status, /events with and without `after`, /state, the
 * WebSocket, /wait), deleted. Each answer is read as the old Worker reads the object's.
 *
 * That the objects run this release is what the first check shows: the run's snapshot carries
 * `pending_approval`, which only this release's object serves.
 */
import { socketEvents, webhookReceiver } from './loopback.mjs';
import { oldWorkerHas } from './old-release.mjs';
import { questionSeqThroughOldWorker } from './question-seq.mjs';
import { ENDED, onQueue, QUEUED, dispatches, rehearsalRuns } from './runs.mjs';

/** Seqs `1..last`, each once and in order. */
const gapFree = (events, last) => events.length === last && events.every((e, i) => e.seq === i + 1);

export async function reverse({ api, tag, base, hookPort, oldRoot }) {
  const { call, check } = api;
  const has = oldWorkerHas(oldRoot);
  const runs = rehearsalRuns(api, tag);
  const hooks = await webhookReceiver(hookPort);
  const made = [];
  const created = async (body, headers) => {
    const r = await call('POST', '/v1/runs', { ...body, config: { ...QUEUED, ...body.config } }, headers);
    if (r.body.run_id) made.push(r.body.run_id);
    return r;
  };
  try {
    // ---- created, keyed, counted -------------------------------------------------------------------
    const plain = await created({ plan: runs.plan('r_plain') });
    const plainRun = await runs.reaches(plain.body.run_id, ENDED);
    const plainLog = (await call('GET', `/v1/runs/${plain.body.run_id}/events`)).body.events ?? [];
    check(
      'reverse: POST /v1/runs: 201, on this release’s object (its snapshot has pending_approval)',
      plain.status === 201 && plainRun.pending_approval === null,
      `${plain.status} pending_approval=${JSON.stringify(plainRun.pending_approval)}`,
    );
    check(
      'reverse: its step ran through the old release’s consumer (queued, not moved inline), counted once',
      plainRun.status === 'completed' && plainRun.step_results?.r_plain?.value === 1 && onQueue(plainLog, 1),
      `${plainRun.status} ${JSON.stringify(plainRun.step_results ?? {})}`,
    );

    const key = { 'Idempotency-Key': `${tag}-reverse-key` };
    const k1 = await created({ plan: runs.plan('r_key') }, key);
    const k2 = await created({ plan: runs.plan('r_key') }, key);
    check(
      has.keys
        ? 'reverse: an Idempotency-Key sent twice: one run, replayed (201, Idempotent-Replayed)'
        : 'reverse: an Idempotency-Key sent twice: two runs, 201 each (the old release ignores the header)',
      k1.status === 201 &&
        k2.status === 201 &&
        (has.keys
          ? k2.body.run_id === k1.body.run_id && k2.headers.get('idempotent-replayed') === 'true'
          : k2.body.run_id !== k1.body.run_id),
      `${k1.status} ${k2.status} ${k1.body.run_id} ${k2.body.run_id}`,
    );

    const wide = await created({
      plan: {
        steps: [
          ...['p1', 'p2', 'p3'].map((id) => ({
            id,
            action: 'demo.counter',
            parameters: { key: `${tag}-${id}` },
          })),
          {
            id: 'p_join',
            action: 'demo.counter',
            parameters: { key: `${tag}-p_join` },
            dependencies: ['p1', 'p2', 'p3'],
          },
        ],
      },
    });
    const wideRun = await runs.reaches(wide.body.run_id, ENDED);
    const counted = ['p1', 'p2', 'p3', 'p_join'].map((id) => wideRun.step_results?.[id]?.value);
    const wideLog = (await call('GET', `/v1/runs/${wide.body.run_id}/events`)).body.events ?? [];
    check(
      'reverse: parallel steps through the old release’s consumer: completed, each queued and counted once',
      wide.status === 201 &&
        wideRun.status === 'completed' &&
        counted.every((v) => v === 1) &&
        onQueue(wideLog, 4),
      `${wideRun.status} ${JSON.stringify(counted)} ${JSON.stringify(dispatches(wideLog))}`,
    );

    // ---- approval: by the API, and by the link the object sent -------------------------------------
    const asked = await created({ plan: runs.plan('r_api'), config: { require_plan_approval: true } });
    await runs.reaches(asked.body.run_id, 'awaiting_approval');
    const waiting = await call('GET', `/v1/runs/${asked.body.run_id}/status`);
    check(
      'reverse: GET /status of a run awaiting approval: 200, its step counted',
      waiting.status === 200 &&
        waiting.body.run_status === 'awaiting_approval' &&
        waiting.body.status?.total === 1,
      `${waiting.status} ${JSON.stringify(waiting.body).slice(0, 160)}`,
    );
    const approved = await call('POST', `/v1/runs/${asked.body.run_id}/approval`, { decision: 'approve' });
    const approvedRun = await runs.reaches(asked.body.run_id, ENDED);
    check(
      'reverse: approved by the API (200); completed, counted once',
      approved.status === 200 &&
        approvedRun.status === 'completed' &&
        approvedRun.step_results?.r_api?.value === 1,
      `${approved.status} ${approvedRun.status}`,
    );

    const linked = await created({
      plan: runs.plan('r_link'),
      config: { require_plan_approval: true, approval: { webhook_url: hooks.url, timeout_s: 3600 } },
    });
    const delivery = await api.until(
      `the approval webhook of ${linked.body.run_id}`,
      async () => hooks.deliveries.find((d) => d.run_id === linked.body.run_id),
      (d) => d !== undefined,
    );
    const link = new URL(delivery.approval_url);
    const page = await call('GET', `${link.pathname}${link.search}`);
    const byLink = await call('POST', `${link.pathname}${link.search}`, { decision: 'approve' });
    const linkedRun = await runs.reaches(linked.body.run_id, ENDED);
    check(
      'reverse: the approval link this release’s object sent: its page 200, approved (200), completed',
      page.status === 200 &&
        byLink.status === 200 &&
        linkedRun.status === 'completed' &&
        linkedRun.step_results?.r_link?.value === 1,
      `${page.status} ${byLink.status} ${linkedRun.status}`,
    );

    // ---- a question: answered while its WebSocket watches; another cancelled -----------------------
    const question = await created({ plan: runs.question('r_asked') });
    const qid = question.body.run_id;
    await runs.reaches(qid, 'awaiting_input');
    let answer;
    const live = await socketEvents(base(), qid, {
      enough: (es) => es.some((e) => e.event_type === 'RunTerminated'),
      during: async () => {
        answer = await call('POST', `/v1/runs/${qid}/input`, { input: 'yes', step_id: 'r_asked' });
      },
    });
    const answeredRun = await runs.runOf(qid);
    check(
      'reverse: an answer to a question (200); completed with it',
      answer?.status === 200 &&
        answeredRun.status === 'completed' &&
        answeredRun.step_results?.r_asked === 'yes',
      `${answer?.status} ${answeredRun.status} ${JSON.stringify(answeredRun.step_results ?? {})}`,
    );
    check(
      'reverse: GET /ws watched it: every event from the first, live through RunTerminated, none twice',
      gapFree(live, answeredRun.last_seq),
      live.map((e) => `${e.seq}:${e.event_type}`).join(' '),
    );
    const received = (await call('GET', `/v1/runs/${qid}/events`)).body.events?.find(
      (e) => e.event_type === 'InputReceived',
    );
    check(
      'reverse: the answer recorded without answered_by (the old release sends no one)',
      received?.payload?.input === 'yes' && !('answered_by' in (received?.payload ?? {})),
      JSON.stringify(received?.payload),
    );

    // A client of this release names who answers (`approver`, 2026-11-30), which an older Worker does
    // not know: with `step_id`, one from 2026-11-29 refuses the unknown key (400, before the object);
    // otherwise it hands the body over whole, as the input, and this release's object reads it.
    const named = await created({ plan: runs.question('r_named') });
    await runs.reaches(named.body.run_id, 'awaiting_input');
    const toStep = await call('POST', `/v1/runs/${named.body.run_id}/input`, {
      input: 'yes',
      step_id: 'r_named',
      approver: 'Ada',
    });
    if (has.stepAnswerChecked) {
      check(
        'reverse: an answer to a step with an approver: 400 invalid_request naming the key (the old Worker’s refusal); not taken',
        toStep.status === 400 &&
          toStep.body.error?.code === 'invalid_request' &&
          toStep.body.error?.message?.includes('approver') &&
          (await runs.runOf(named.body.run_id)).status === 'awaiting_input',
        `${toStep.status} ${JSON.stringify(toStep.body).slice(0, 200)}`,
      );
    }
    const sent = has.stepAnswerChecked
      ? await call('POST', `/v1/runs/${named.body.run_id}/input`, { input: 'yes', approver: 'Ada' })
      : toStep;
    const namedRun = await runs.reaches(named.body.run_id, ENDED);
    const namedAnswer = (await call('GET', `/v1/runs/${named.body.run_id}/events`)).body.events?.find(
      (e) => e.event_type === 'InputReceived',
    );
    check(
      `reverse: an answer${has.stepAnswerChecked ? '' : ' to a step'} with an approver: the answer is the input, answered_by recorded`,
      sent.status === 200 &&
        namedRun.status === 'completed' &&
        namedRun.step_results?.r_named === 'yes' &&
        namedAnswer?.payload?.answered_by === 'Ada',
      `${sent.status} ${namedRun.status} ${JSON.stringify(namedRun.step_results ?? {})} ${JSON.stringify(namedAnswer?.payload)}`,
    );

    await questionSeqThroughOldWorker({ api, runs }, has);

    const dropped = await created({ plan: runs.question('r_cancel') });
    await runs.reaches(dropped.body.run_id, 'awaiting_input');
    const cancel = await call('POST', `/v1/runs/${dropped.body.run_id}/cancel`, { reason: 'rehearsal' });
    const cancelled = await runs.runOf(dropped.body.run_id);
    const counts = cancelled.counts ?? {};
    const summed = Object.entries(counts)
      .filter(([k]) => k !== 'total')
      .reduce((n, [, v]) => n + v, 0);
    check(
      'reverse: a run awaiting input cancelled (200); its counts add up to total, its question interrupted',
      cancel.status === 200 &&
        cancel.body.status === 'cancelled' &&
        cancelled.status === 'cancelled' &&
        summed === counts.total &&
        counts.interrupted === 1,
      `${cancel.status} ${cancel.body.status} ${JSON.stringify(counts)}`,
    );

    // ---- a step failed and retried; a child run --------------------------------------------------------
    const flaky = await created({
      plan: {
        steps: [
          {
            id: 'r_flaky',
            action: 'demo.flaky',
            parameters: { fail_times: 1, key: `${tag}-flaky`, permanent: true },
          },
        ],
      },
    });
    const failedRun = await runs.reaches(flaky.body.run_id, ENDED);
    const retried = await call('POST', `/v1/runs/${flaky.body.run_id}/retry`, { step_id: 'r_flaky' });
    const retriedRun = await runs.reaches(flaky.body.run_id, ENDED);
    check(
      'reverse: a failed step retried (200): its second attempt completes the run',
      failedRun.status !== 'completed' &&
        retried.status === 200 &&
        retriedRun.status === 'completed' &&
        retriedRun.step_results?.r_flaky?.attempts === 2,
      `${failedRun.status} ${retried.status} ${retriedRun.status} ${JSON.stringify(retriedRun.step_results ?? {})}`,
    );
    const versions = await call('GET', `/v1/runs/${flaky.body.run_id}/plans`);
    const v1 = await call('GET', `/v1/runs/${flaky.body.run_id}/plans/1`);
    check(
      'reverse: GET /plans and /plans/1: its plan version',
      versions.status === 200 && v1.status === 200 && JSON.stringify(v1.body).includes('r_flaky'),
      `${versions.status} ${JSON.stringify(versions.body).slice(0, 120)} ${v1.status}`,
    );

    const parent = await created({
      plan: {
        steps: [
          {
            id: 'r_sub',
            action: 'plan.execute',
            parameters: {
              plan: { steps: [{ id: 'c1', action: 'demo.counter', parameters: { key: `${tag}-c1` } }] },
            },
          },
        ],
      },
    });
    const parentRun = await runs.reaches(parent.body.run_id, ENDED);
    const children = await call('GET', `/v1/runs?parent_run_id=${parent.body.run_id}`);
    const child = children.body.runs?.[0]?.run_id;
    const childRun = child && (await runs.runOf(child));
    check(
      'reverse: plan.execute starts a child run, which reports back: both completed, counted once',
      parentRun.status === 'completed' &&
        children.body.runs?.length === 1 &&
        childRun?.status === 'completed' &&
        childRun?.step_results?.c1?.value === 1,
      `${parentRun.status} ${JSON.stringify(children.body).slice(0, 160)} ${childRun?.status}`,
    );
    const cascade = await call('DELETE', `/v1/runs/${parent.body.run_id}`);
    check(
      'reverse: DELETE of the parent: 200, its child run deleted with it',
      cascade.status === 200 &&
        cascade.body.child_runs?.includes(child) &&
        (await call('GET', `/v1/runs/${child}`)).status === 404,
      `${cascade.status} ${JSON.stringify(cascade.body).slice(0, 160)}`,
    );
    made.splice(made.indexOf(parent.body.run_id), 1);

    // ---- the reads -----------------------------------------------------------------------------------
    const listed = await call('GET', '/v1/runs?limit=100');
    const rows = new Map((listed.body.runs ?? []).map((r) => [r.run_id, r.status]));
    check(
      'reverse: GET /v1/runs lists every run, each with its status',
      listed.status === 200 &&
        made.every((id) => rows.has(id)) &&
        rows.get(dropped.body.run_id) === 'cancelled' &&
        rows.get(plain.body.run_id) === 'completed',
      `${listed.status} ${made.filter((id) => !rows.has(id)).length} missing`,
    );
    const pid = plain.body.run_id;
    const all = await call('GET', `/v1/runs/${pid}/events`);
    check(
      'reverse: GET /events: every event, in order',
      all.status === 200 && gapFree(all.body.events ?? [], plainRun.last_seq),
      `${all.status} ${(all.body.events ?? []).map((e) => e.seq).join(',')} last_seq ${plainRun.last_seq}`,
    );
    const after = await call('GET', `/v1/runs/${pid}/events?after=2`);
    check(
      'reverse: GET /events?after=2: from seq 3',
      after.status === 200 && after.body.events?.[0]?.seq === 3,
      `${after.status} ${JSON.stringify(after.body).slice(0, 160)}`,
    );
    const past = await call('GET', `/v1/runs/${pid}/events?after=100000`);
    check(
      has.afterChecked
        ? 'reverse: GET /events past the last event: 400 with last_seq'
        : 'reverse: GET /events past the last event: 200, no events (as the old release answers it)',
      has.afterChecked
        ? past.status === 400 && past.body.error?.details?.last_seq === plainRun.last_seq
        : past.status === 200 && past.body.events?.length === 0,
      `${past.status} ${JSON.stringify(past.body).slice(0, 160)}`,
    );
    const replayed = await call('GET', `/v1/runs/${pid}/state?at=2`);
    check(
      'reverse: GET /state?at=2: the run as of its second event',
      replayed.status === 200 && replayed.body.run_id === pid && replayed.body.last_seq === 2,
      `${replayed.status} ${JSON.stringify(replayed.body).slice(0, 160)}`,
    );
    const backlog = await socketEvents(base(), pid, {
      after: 1,
      enough: (es) => es.at(-1)?.seq === plainRun.last_seq,
    });
    check(
      'reverse: GET /ws?after=1 of an ended run: its events from seq 2',
      backlog[0]?.seq === 2 && backlog.length === plainRun.last_seq - 1,
      backlog.map((e) => e.seq).join(','),
    );
    const wait = await call('GET', `/v1/runs/${pid}/wait?until=terminal&timeout_s=5`);
    check(
      has.wait
        ? 'reverse: GET /wait of an ended run: answered at once'
        : 'reverse: GET /wait, a route the old release does not have: 404, not a 5xx',
      has.wait
        ? wait.status === 200 && wait.body.timed_out === false && wait.body.run?.status === 'completed'
        : wait.status === 404,
      `${wait.status} ${JSON.stringify(wait.body).slice(0, 160)}`,
    );

    // ---- deleted --------------------------------------------------------------------------------------
    const gone = await call('DELETE', `/v1/runs/${pid}`);
    const after404 = await call('GET', `/v1/runs/${pid}`);
    const relisted = await call('GET', '/v1/runs?limit=100');
    check(
      'reverse: DELETE of an ended run: 200; then 404, and not listed',
      gone.status === 200 &&
        after404.status === 404 &&
        !(relisted.body.runs ?? []).some((r) => r.run_id === pid),
      `${gone.status} ${JSON.stringify(gone.body).slice(0, 160)} then ${after404.status}`,
    );
  } finally {
    await hooks.close();
  }
}
