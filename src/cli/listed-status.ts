/**
 * `edgeplan runs --status`: what the list shows (client/listed-status.ts, as the dashboard's runs list
 * shows and filters it), `--status` takes.
 */
import { apiStatusFor, LISTED_STATUSES, listedStatus } from '../client/listed-status';
import type { RunStatus, RunSummary } from '../client/types';
import { UsageError } from './exit-codes';

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
    status: apiStatusFor(wanted),
    keep: (run) => listedStatus(run) === wanted,
  };
}
