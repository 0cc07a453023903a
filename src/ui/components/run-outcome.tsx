/**
 * How an ended run ended, in words. A failure's error is red; a cancellation's reason and a rejected
 * plan's comment are not failures, and are drawn in neutral colours. The API reports a rejected run as
 * `cancelled` with `termination_reason: "plan_rejected"` (the runs list too); the approver's comment is
 * in the run's events (`ApprovalRejected`).
 */
import { decidedText } from '../../client';
import type { Ending } from '../run-ending';
import { visibleText } from '../visible-text';

export function RunOutcome({
  status,
  error,
  ending,
}: {
  status: string;
  error: string | null;
  ending: Ending | null;
}) {
  if (ending?.kind === 'rejected')
    return (
      <p class="outcome" data-outcome="rejected">
        <strong>Plan rejected</strong>
        {decidedText(ending) ? ` ${visibleText(decidedText(ending))}` : ''}
        {ending.comment ? (
          <>
            :{' '}
            <q class="comment" dir="auto">
              {visibleText(ending.comment)}
            </q>
          </>
        ) : (
          ' (no comment)'
        )}
      </p>
    );
  if (ending?.kind === 'limit')
    return (
      <p class="outcome" data-outcome="limit">
        <strong>Stopped at a limit</strong>: {visibleText(ending.message)}
      </p>
    );
  if (ending?.kind === 'cancelled')
    return (
      <p class="outcome" data-outcome="cancelled">
        <strong>Cancelled</strong>: {visibleText(ending.reason)}
      </p>
    );
  // A cancelled run whose events are not read yet: its reason is no error either.
  if (!error || status === 'cancelled') return null;
  // A tool's error quotes what it was given (a key, a URL): its bidi overrides written out, as elsewhere.
  return <p class="error">{visibleText(error)}</p>;
}
