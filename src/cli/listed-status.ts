/**
 * `edgeplan runs --status`: what the list shows (client/listed-status.ts, as the dashboard's runs list
 * shows and filters it), `--status` takes.
 */
import { LISTED_STATUSES, listedStatus, type ListedStatus } from '../client/listed-status';
import type { RunSummary } from '../client/types';
import { UsageError } from './exit-codes';

/**
 * `--status <given>` as the API's filter and the rows of its page to keep (the API finds `rejected`
 * runs itself, and lists them among `cancelled` ones too: `cancelled` keeps the others). A status the
 * list never shows is a usage error naming those it does.
 * @example statusFilter('rejected') // { status: 'rejected', keep: (run) => listedStatus(run) === 'rejected' }
 */
export function statusFilter(given: string): {
  status: ListedStatus;
  keep: (run: Pick<RunSummary, 'status' | 'termination_reason'>) => boolean;
} {
  const wanted = LISTED_STATUSES.find((s) => s === given);
  if (!wanted)
    throw new UsageError(
      `--status ${given}: not a status a run is listed with; give one of ${LISTED_STATUSES.join(', ')}`,
    );
  return {
    status: wanted,
    keep: (run) => listedStatus(run) === wanted,
  };
}
