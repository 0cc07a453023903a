/**
 * `edgeplan runs --status`: what the list shows, it filters by. A rejected plan ends the run
 * `cancelled` with `termination_reason: "plan_rejected"`; the list shows it `rejected`, so
 * `--status rejected` finds it (and `--status cancelled` does not), and a status no run is listed
 * with is a usage error (exit 2) naming those there are — not the API's 400 about its own enum.
 */
import { describe, expect, it } from 'vitest';
import { LISTED_STATUSES, listedStatus } from '../../src/client/listed-status';
import { statusFilter } from '../../src/cli/listed-status';
import { UsageError } from '../../src/cli/exit-codes';

const rejected = { status: 'cancelled', termination_reason: 'plan_rejected' } as const;
const cancelled = { status: 'cancelled', termination_reason: 'cancelled by request' } as const;
const completed = { status: 'completed', termination_reason: 'success' } as const;

describe('the statuses edgeplan runs lists and filters by', () => {
  it('lists a run whose plan was rejected as rejected, any other by its status', () => {
    expect([rejected, cancelled, completed].map(listedStatus)).toEqual([
      'rejected',
      'cancelled',
      'completed',
    ]);
  });

  it('asks the API for the rejected runs for --status rejected', () => {
    const f = statusFilter('rejected');
    expect(f.status).toBe('rejected');
    expect([rejected, cancelled, completed].filter(f.keep)).toEqual([rejected]);
  });

  it('keeps the cancelled runs that were not rejected for --status cancelled', () => {
    const f = statusFilter('cancelled');
    expect(f.status).toBe('cancelled');
    expect([rejected, cancelled, completed].filter(f.keep)).toEqual([cancelled]);
  });

  it('passes every status to the API as it is', () => {
    expect(LISTED_STATUSES.map((s) => statusFilter(s).status)).toEqual(LISTED_STATUSES);
  });

  it('refuses a status no run is listed with as a usage error naming the ones there are', () => {
    expect(() => statusFilter('bogus')).toThrow(UsageError);
    expect(() => statusFilter('bogus')).toThrow(
      '--status bogus: not a status a run is listed with; give one of planning, awaiting_approval, running, awaiting_input, completed, failed, aborted, cancelled, rejected',
    );
  });
});
