/**
 * The `steps-dlq` consumer. A step message the `steps` consumer failed on `max_retries` times lands
 * on the dead-letter queue (wrangler.toml). Left there, its step would wait for its deadline with
 * nothing said; instead it is reported to its run as a failed attempt (`dead_lettered`, not retried:
 * the queue already tried), so the run's failure handling — fallback, `on_step_failure`,
 * `continue_on_failure` — takes over and the trace says what happened. An attempt whose result was
 * already recorded ignores the report (a result is recorded at most once).
 */
import type { StepOutcome } from '../engine/machine';
import { runObject } from './run-object';
import { stepMessages, type StepMessage } from './messages';
import { isNewerFormatRun, NEWER_FORMAT_RETRY_S } from './storage-format';
import { log } from '../log';

/** The dead-letter queue of `steps`, as named in this repository's wrangler.toml. */
export const DEAD_LETTER_QUEUE = 'steps-dlq';

/**
 * Whether a batch comes from a dead-letter queue: one whose name has `dlq` as a dash-separated part —
 * `steps-dlq`, a team's own `custom-worker-steps-dlq`, with an environment suffix `steps-dlq-staging`.
 * The handler sees only the queue's name, and a team's Worker names its queues itself: matched by
 * the exact name only, its dead letters were consumed as step messages and the step was run again.
 */
export function isDeadLetterBatch(batch: MessageBatch<unknown>): boolean {
  return /(^|-)dlq(-|$)/.test(batch.queue);
}

/** The failure reported for a dead-lettered attempt. */
export function deadLetterOutcome(msg: StepMessage): StepOutcome {
  return {
    success: false,
    latency_ms: 0,
    error: {
      code: 'dead_lettered',
      message:
        `Step ${msg.step_id} attempt ${msg.attempt} was dead-lettered: the steps queue's consumer ` +
        `failed on it until the queue gave up (max_retries), so it never ran to a result`,
      retryable: false,
    },
  };
}

/**
 * Reports every message's attempt as failed to its run, one RPC per run; a run that cannot be
 * reached has its messages retried by the dead-letter queue.
 * @example
 * export default { queue: (batch, env) => isDeadLetterBatch(batch) ? consumeDeadLetters(batch, env) : consumeSteps(batch, env) };
 */
export async function consumeDeadLetters(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const byRun = new Map<string, Message<StepMessage>[]>();
  for (const m of stepMessages(batch.messages, 'steps-dlq'))
    byRun.set(m.body.run_id, [...(byRun.get(m.body.run_id) ?? []), m]);
  await Promise.all(
    [...byRun].map(async ([runId, msgs]) => {
      const reports = msgs.map((m) => ({
        step_id: m.body.step_id,
        attempt: m.body.attempt,
        outcome: deadLetterOutcome(m.body),
      }));
      try {
        await runObject(env.PLAN_RUN, runId).completeSteps(reports);
        log(
          'dead_letters_failed',
          `steps-dlq: run ${runId}: ${msgs.length} dead-lettered attempt(s) reported as failed`,
          {
            run_id: runId,
            count: msgs.length,
            ...(msgs.length === 1 ? { step_id: msgs[0]!.body.step_id, attempt: msgs[0]!.body.attempt } : {}),
          },
        );
        for (const m of msgs) m.ack();
      } catch (err) {
        log(
          'dead_letters_retried',
          `steps-dlq: run ${runId} unreachable; ${msgs.length} message(s) retried`,
          {
            run_id: runId,
            count: msgs.length,
            error: err,
          },
        );
        // A run a newer release wrote (a rollback) is not reachable for a while: wait longer.
        for (const m of msgs) m.retry({ delaySeconds: isNewerFormatRun(err) ? NEWER_FORMAT_RETRY_S : 5 });
      }
    }),
  );
}
