/**
 * How an ended run ended, told apart: a rejected plan or a cancellation (neither is a failure), from
 * the run's events; and the status a person reads. The API reports a rejected run as `cancelled` with
 * `termination_reason: "plan_rejected"` (the runs list too); the approver's comment is in the run's
 * events (`ApprovalRejected`). Drawn by run-outcome.tsx.
 */
import type { EventOf, RunEvent } from '../client';

export type Ending =
  | {
      kind: 'rejected';
      by: 'approver' | 'timeout';
      comment?: string;
      approver?: string;
      approver_via?: string;
    }
  | { kind: 'cancelled'; reason: string }
  | { kind: 'limit'; message: string };

const is =
  <T extends RunEvent['event_type']>(type: T) =>
  (e: RunEvent): e is EventOf<T> =>
    e.event_type === type;

/**
 * A cancellation, a rejection, or a success a limit cut short (an iterative run's turns stopped at
 * `max_steps`), from the run's events; null for any other ending (or none yet).
 */
export function endingOf(events: readonly RunEvent[]): Ending | null {
  // From the last event back to the last RunTerminated (a page redraws with 300,000 events read): a
  // retry after it means that ending is over.
  let i = events.length - 1;
  for (; i >= 0 && events[i]!.event_type !== 'RunTerminated'; i--)
    if (events[i]!.event_type === 'RunResumed') return null;
  const end = events[i];
  if (!end || !is('RunTerminated')(end)) return null;
  if (end.payload.limit) return { kind: 'limit', message: end.payload.limit.message };
  if (end.payload.status !== 'cancelled') return null;
  if (end.payload.reason !== 'plan_rejected') return { kind: 'cancelled', reason: end.payload.reason };
  const rejected = events.findLast(is('ApprovalRejected'));
  const p = rejected?.payload;
  // Who rejected it and how it came (a name, the approval link, a token), as the approval note says.
  return {
    kind: 'rejected',
    by: p?.by ?? 'approver',
    ...(p?.comment ? { comment: p.comment } : {}),
    ...(p?.approver ? { approver: p.approver } : {}),
    ...(p?.approver_via ? { approver_via: p.approver_via } : {}),
  };
}

/** The status a person reads: a cancelled run whose plan was rejected says `rejected`. */
export function shownStatus(status: string, terminationReason: string | null | undefined): string {
  return status === 'cancelled' && terminationReason === 'plan_rejected' ? 'rejected' : status;
}
