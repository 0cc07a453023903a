/**
 * The statuses a run is listed with — in `edgeplan runs` and the dashboard's runs list: the API's, and
 * `rejected` — a run whose plan was rejected, which the API lists as `cancelled` with
 * `termination_reason: "plan_rejected"` (and finds with `status=rejected`).
 */
import type { RunStatus, RunSummary } from './types';

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
