/**
 * The statuses `edgeplan runs` shows and filters by: the API's, and `rejected` — a run whose plan was
 * rejected, which the API lists as `cancelled` with `termination_reason: "plan_rejected"` (as the
 * dashboard's runs list shows and filters it). What the list shows, `--status` takes.
 */
import type { RunStatus, RunSummary } from '../client/types';
import { UsageError } from './exit-codes';

/** Every status a run is listed with, in the order a run may reach them. */
export const LISTED_STATUSES = [
  'planning',
  'awaiting_approval',
  'running',
  'awaiting_input',
  'completed',
  'failed',
  'aborted',
  'cancelled',
  'rejected',
] as const satisfies readonly (RunStatus | 'rejected')[];
export type ListedStatus = (typeof LISTED_STATUSES)[number];

/** The status a run is listed with: `rejected` for a plan an approver (or its deadline) rejected. */
export function listedStatus(run: Pick<RunSummary, 'status' | 'termination_reason'>): ListedStatus {
  return run.status === 'cancelled' && run.termination_reason === 'plan_rejected' ? 'rejected' : run.status;
}

/**
 * `--status <given>` as the API's filter and the rows of its page to keep (`rejected` asks for the
 * cancelled runs and keeps the rejected ones; `cancelled` the others). A status the list never shows
 * is a usage error naming those it does.
 * @example statusFilter('rejected') // { status: 'cancelled', keep: (run) => listedStatus(run) === 'rejected' }
 */
export function statusFilter(given: string): {
  status: RunStatus;
  keep: (run: Pick<RunSummary, 'status' | 'termination_reason'>) => boolean;
} {
  const wanted = LISTED_STATUSES.find((s) => s === given);
  if (!wanted)
    throw new UsageError(
      `--status ${given}: not a status a run is listed with; give one of ${LISTED_STATUSES.join(', ')}`,
    );
  return {
    status: wanted === 'rejected' ? 'cancelled' : wanted,
    keep: (run) => listedStatus(run) === wanted,
  };
}
