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

/** Pages read at most, one after another, for a filter the API does not apply itself (cancelled, not rejected). */
export const SCAN_PAGES = 4;

/**
 * The first page, from `cursor`, holding a run `keep` keeps — its runs those kept — reading on (at
 * most {@link SCAN_PAGES} pages) past pages that hold none: the API lists rejected runs among
 * cancelled ones, so a page of `status=cancelled` may hold only rejected runs though an older page
 * holds others. The page returned carries the last page's `next_cursor`, so none is skipped. Null
 * when `stale()` says the answer is no longer wanted (the dashboard's filter changed meanwhile).
 * @example const page = await keptPage((c) => client.listRuns({ status: 'cancelled', ...(c ? { cursor: c } : {}) }), null, keep);
 */
export async function keptPage<P extends { runs: RunSummary[]; next_cursor: string | null }>(
  read: (cursor: string | null) => Promise<P>,
  cursor: string | null,
  keep: (run: RunSummary) => boolean,
  stale: () => boolean = () => false,
): Promise<P | null> {
  let page = await read(cursor);
  page.runs = page.runs.filter(keep);
  for (let n = 1; page.runs.length === 0 && page.next_cursor && n < SCAN_PAGES; n++) {
    if (stale()) return null;
    page = await read(page.next_cursor);
    page.runs = page.runs.filter(keep);
  }
  return stale() ? null : page;
}
