/**
 * Queued attempts no consumer took: a Worker that sends steps to its queue but has no consumer for it
 * (no [[queues.consumers]] block, or no queue handler exported) leaves them there. The run's object
 * notices when an attempt's first lease runs out unbegun (leases.ts) and carries it out itself
 * (plan-run.ts); this says why, in the words the trace and the log show.
 */
import type { RunState } from '../engine/state';
import { stepDef } from '../engine/decide';
import type { ErrorInfo } from '../errors';

/** Meta key: set when no consumer took one of the run's queued attempts (when, epoch ms). */
export const QUEUE_BYPASSED = 'steps_queue_bypassed';

/** When the current attempt of step `id` was scheduled: its deadline less its time limit. */
export function scheduledAt(state: RunState, id: string): number {
  const rt = state.steps.get(id)!;
  const timeout = stepDef(state, id).timeout_ms ?? state.config.step_timeout * 1000;
  return (rt.deadline_at ?? Date.now()) - timeout;
}

/** Why an attempt is carried out in the object: what a user sees in the trace and the log. */
export function notConsumed(stepId: string, attempt: number, waitedMs: number): ErrorInfo {
  return {
    code: 'queue_not_consumed',
    message:
      `No consumer of the steps queue (the STEPS binding) took step "${stepId}" attempt ${attempt} in ` +
      `${(waitedMs / 1000).toFixed(waitedMs < 10_000 ? 1 : 0)} s: this Worker sends steps to the queue, but nothing consumes it. ` +
      'Add a [[queues.consumers]] block for that queue to wrangler.toml, beside its [[queues.producers]], ' +
      'and export the queue handler from the Worker (export default edgeplan.default — it has fetch and ' +
      'queue). Meanwhile the run carries the attempt out in its own object, and its later steps too.',
    retryable: true,
  };
}
