/**
 * Queued attempts no consumer took: a Worker that sends steps to its queue but has no consumer for it
 * (no [[queues.consumers]] block, or no queue handler exported) leaves them there. The run's object
 * notices when an attempt's first lease runs out unbegun (leases.ts) and carries it out itself
 * (expired-leases.ts); this says why, in the words the trace and the log show.
 *
 * An unbegun attempt says no consumer took it only if the object looked when its window ended (its
 * alarm is set for then). When the object looks much later, it was held meanwhile — most often by a
 * rollback to a release that refuses the run's newer storage format (storage-format.ts), which refuses
 * the consumers' deliveries too, until the message runs out of retries on the dead-letter queue — and
 * whether the queue has a consumer is not known: the attempt is carried out in the object all the
 * same (its message may be gone), said as `held_past_queue_window`, and the run's later steps still
 * go to the queue.
 */
import type { MachineInput } from '../engine/machine-types';
import type { RunState } from '../engine/state';
import { stepDef } from '../engine/step-definition';
import type { ErrorInfo } from '../errors';
import { log } from '../log';

/** Meta key: set when no consumer took one of the run's queued attempts (when, epoch ms). */
export const QUEUE_BYPASSED = 'steps_queue_bypassed';

/**
 * How long after an attempt's window ended the object may look and still conclude that no consumer
 * took it. Its alarm fires at the window's end: a few seconds late under load, up to about two minutes
 * when the alarm handler threw and the platform retried it. A release that refuses the run (a
 * rollback) sets that alarm 5 minutes on each time it fires (NEWER_FORMAT_RETRY_AFTER_S), so a
 * rollback that spanned the window's end always makes the next look later than this.
 */
export const LATE_CHECK_MS = 180_000;

/** When the current attempt of step `id` was scheduled: its deadline less its time limit. */
export function scheduledAt(state: RunState, id: string): number {
  const rt = state.steps.get(id)!;
  const timeout = stepDef(state, id).timeout_ms ?? state.config.step_timeout * 1000;
  return (rt.deadline_at ?? Date.now()) - timeout;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
const minutes = (ms: number) => (ms < 120_000 ? seconds(ms) : `${Math.round(ms / 60_000)} min`);

/** Why an attempt is carried out in the object: what a user sees in the trace and the log. */
export function notConsumed(stepId: string, attempt: number, waitedMs: number): ErrorInfo {
  return {
    code: 'queue_not_consumed',
    message:
      `No consumer of the steps queue (the STEPS binding) took step "${stepId}" attempt ${attempt} in ` +
      `${seconds(waitedMs)}: this Worker sends steps to the queue, but nothing consumes it. ` +
      'Add a [[queues.consumers]] block for that queue to wrangler.toml, beside its [[queues.producers]], ' +
      'and export the queue handler from the Worker (export default edgeplan.default — it has fetch and ' +
      'queue). Under `wrangler dev` a restart also does this: its local queue is kept in memory, and the ' +
      'messages it held are lost (nothing to fix then). Meanwhile the run carries the attempt out in its ' +
      'own object, and its later steps too.',
    retryable: true,
  };
}

/** Why an attempt the object looked at `lateMs` after its window is carried out in the object. */
export function heldPastWindow(stepId: string, attempt: number, lateMs: number): ErrorInfo {
  return {
    code: 'held_past_queue_window',
    message:
      `Step "${stepId}" attempt ${attempt} was queued and no consumer began it, but the run's object could ` +
      `only look at it ${minutes(lateMs)} after its queue window ended: the run was held meanwhile, and ` +
      'consumers could not begin it either — most often a rollback to a release that refused the run’s ' +
      'newer storage format (its queue message was refused, and after about 78 minutes runs out of retries ' +
      'on the dead-letter queue; docs/upgrading.md), or an outage. Nothing says the queue is not consumed: the run carries ' +
      'this attempt out in its own object (same attempt, same idempotency key), and its later steps go ' +
      'to the queue as before.',
    retryable: true,
  };
}

type Untaken = { step_id: string; attempt: number; until: number };
type Redispatch = Extract<MachineInput, { type: 'redispatch' }>;

/**
 * The inputs that carry the untaken attempts out in the object, each with why, logged; `unconsumed`:
 * one was looked at in time, so no consumer took it — the run's later steps are placed in the object.
 */
export function untakenInputs(
  state: RunState,
  untaken: readonly Untaken[],
  now: number,
): { inputs: Redispatch[]; unconsumed: boolean } {
  const inputs = untaken.map(({ step_id, attempt, until }): Redispatch => {
    const waited_ms = now - scheduledAt(state, step_id);
    const late = now - until;
    const error =
      late > LATE_CHECK_MS
        ? heldPastWindow(step_id, attempt, late)
        : notConsumed(step_id, attempt, waited_ms);
    return { type: 'redispatch', step_id, attempt, waited_ms, error };
  });
  for (const code of ['queue_not_consumed', 'held_past_queue_window'] as const) {
    const of = inputs.filter((i) => i.error.code === code);
    const first = of[0];
    if (!first) continue;
    const more = of.slice(1).map((i) => i.step_id);
    log(
      code,
      `run ${state.run_id}: ${code}: ${first.error.message}` +
        (more.length > 0 ? ` (and ${more.length} more attempt(s): ${more.join(', ')})` : ''),
      { run_id: state.run_id, step_id: first.step_id, attempt: first.attempt, code, count: of.length },
    );
  }
  return { inputs, unconsumed: inputs.some((i) => i.error.code === 'queue_not_consumed') };
}
