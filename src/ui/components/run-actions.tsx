/**
 * A run page's buttons, as the run allows them now (use-run-actions.ts): Approve, Reject and Modify
 * while it waits for approval, Retry after it failed, Cancel while it goes on, Delete once it ended.
 * One block: a long goal gives way to it, rather than Modify and Cancel wrapping under Approve.
 */
import { api } from '../api';
import { approverOf } from '../approver-name';
import type { RunActions } from '../use-run-actions';

export function RunActionButtons({
  runId,
  waitingApproval,
  planVersion,
  actions,
}: {
  runId: string;
  waitingApproval: boolean;
  /** The plan version the page shows: a decision is about it, refused if another awaits by then. */
  planVersion: number | null;
  actions: RunActions;
}) {
  const { busy, act, comment, offers, modifying, deleting } = actions;
  const said = {
    comment: comment.trim(),
    ...approverOf(actions.approver),
    ...(planVersion === null ? {} : { planVersion }),
  };
  return (
    <div class="actions">
      {waitingApproval ? (
        <>
          <button
            type="button"
            class="primary"
            disabled={!!busy}
            onClick={() => void act('approve', () => api().approve(runId, said), true)}
          >
            Approve
          </button>
          <button
            type="button"
            disabled={!!busy}
            onClick={() => void act('reject', () => api().reject(runId, said), true)}
          >
            Reject
          </button>
          <button
            type="button"
            disabled={!!busy}
            ref={actions.modifyButton}
            aria-expanded={modifying}
            onClick={() => actions.setModifying((m) => !m)}
          >
            Modify
          </button>
        </>
      ) : null}
      {offers.retry ? (
        <button
          type="button"
          disabled={!!busy}
          onClick={() => void act('retry', () => api().retry(runId), true)}
        >
          Retry
        </button>
      ) : null}
      {offers.cancel ? (
        <button
          type="button"
          class="danger"
          disabled={!!busy}
          onClick={() => void act('cancel', () => api().cancel(runId, 'from the dashboard'))}
        >
          Cancel
        </button>
      ) : null}
      {offers.delete ? (
        <button
          type="button"
          class="danger"
          disabled={!!busy}
          ref={actions.deleteButton}
          aria-expanded={deleting}
          onClick={() => actions.setDeleting((d) => !d)}
        >
          Delete
        </button>
      ) : null}
    </div>
  );
}
