/**
 * A dead-lettered step message across the two releases of a rollout (docs/upgrading.md, "Gradual
 * deployments"): the front's `steps-dlq` consumer, of one release, reports the attempt to a run object
 * of the other (`completeSteps`, with the `dead_lettered` outcome). The message is sent to `steps-dlq`
 * by the rehearsal's feeder (rollout/feeder.mjs), as the queue sends it once the `steps` consumer has
 * failed on it `max_retries` times; meanwhile the attempt is still running in the front's `steps`
 * consumer, whose result, coming after, must be ignored (an attempt's result is recorded once).
 *
 * @example
 * await deadLetter('split', ctx); // a server up with the feeder in front (feeder.mjs)
 */
import { ENDED, QUEUED } from './runs.mjs';

/** Attempt 1 failed by the dead letter, attempt 2 its fallback (an attempt of the step's own). */
const FAILED_THEN_FALLBACK = '1:dead_lettered,2:ok';
/**
 * How long the dead-lettered attempt's tool runs — long enough that the dead letter reaches the object
 * first on a busy machine (the dead-letter consumer waits for its batch; at 8 s the tool once ended
 * first, and its result was rightly kept) — and after which its late result is looked for.
 */
const SLEEP_MS = 20_000;

export async function deadLetter(name, { api, runs }) {
  const { call, check, until } = api;
  const started = await call('POST', '/v1/runs', {
    plan: {
      steps: [
        {
          id: 's',
          action: 'demo.sleep',
          parameters: { ms: SLEEP_MS, value: 'slept' },
          fallback_action: { action: 'demo.echo', parameters: { fallback: true } },
        },
        { id: 'after', action: 'demo.echo', parameters: { s: '{{ steps.s.output }}' }, dependencies: ['s'] },
      ],
    },
    config: QUEUED,
  });
  const runId = started.body.run_id;
  const log = async () => (await call('GET', `/v1/runs/${runId}/events`)).body.events ?? [];
  await until(`${name} dead letter: s running in the consumer`, log, (es) =>
    es.some((e) => e.event_type === 'ToolInvoked' && e.payload.step_id === 's'),
  );
  const sentAt = Date.now();
  const sent = await call('POST', '/__rehearsal/dead-letter', {
    run_id: runId,
    step_id: 's',
    attempt: 1,
    plan_version: 1,
  });
  const run = await runs.reaches(runId, ENDED);
  const returned = (es) =>
    es
      .filter((e) => e.event_type === 'ToolReturned' && e.payload.step_id === 's')
      .map((e) => `${e.payload.attempt}:${e.payload.success ? 'ok' : e.payload.error?.code}`);
  check(
    `${name} dead letter: the other release's object fails the attempt as dead_lettered, its fallback runs, the run completes`,
    sent.status === 200 &&
      run.status === 'completed' &&
      run.step_results?.after?.s?.fallback === true &&
      returned(await log()).join() === FAILED_THEN_FALLBACK,
    `${sent.status} ${run.status} ${JSON.stringify(run.step_results)} ${returned(await log()).join()}`,
  );
  // The consumer's own result for the attempt arrives once its tool ends: ignored.
  await new Promise((r) => setTimeout(r, Math.max(0, sentAt + SLEEP_MS + 3000 - Date.now())));
  const after = await log();
  const last = (await runs.runOf(runId)).last_seq;
  check(
    `${name} dead letter: the consumer's late result for that attempt is not recorded, nothing after the run's end`,
    returned(after).join() === FAILED_THEN_FALLBACK &&
      after.at(-1)?.event_type === 'RunTerminated' &&
      last === after.length,
    `${returned(after).join()} last ${after.at(-1)?.event_type} seq ${last}/${after.length}`,
  );
}
