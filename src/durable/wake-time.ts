/**
 * When a run's object must wake next: the machine's earliest retry or deadline, side work to check on,
 * a queue lease running out, the run's retention, a D1 write owed, or a check on inline attempts that
 * an eviction may have lost. The object keeps its one alarm there (alarm.ts).
 */
import type { RunMachine } from '../engine/machine';
import { TERMINAL_RUN_STATUSES } from '../plan/model';
import type { DurableSideWork } from './side-work';
import type { InlineAttempts } from './inline-attempts';
import type { IndexWriter } from './index-writer';
import type { Leases } from './leases';
import { retentionDueAt } from './retention';
import { unasked } from './unasked-questions';

/** How often a running inline attempt is checked on, so one lost to an eviction is re-run promptly. */
export const INLINE_RECOVERY_MS = 5_000;
/** When the run index is tried again while a D1 write is owed (lost with an instance, or refused). */
export const INDEX_RETRY_MS = 10_000;

/** What keeps times of its own besides the machine. */
export type WakeSources = {
  side: Pick<DurableSideWork, 'nextCheck'>;
  leases: Pick<Leases, 'nextExpiry'>;
  index: Pick<IndexWriter, 'owed'>;
  inline: Pick<InlineAttempts, 'recoverable'>;
  /** RUN_RETENTION_DAYS in ms (retention.ts), or null when ended runs are kept; asked for an ended run. */
  retentionMs: () => number | null;
};

/** The earliest of those times (epoch ms), or null when nothing is due: no alarm then. */
export function wakeAt(m: RunMachine, sources: WakeSources, now: number): number | null {
  const times = [m.nextWakeAt(), sources.side.nextCheck(now), sources.leases.nextExpiry()];
  if (TERMINAL_RUN_STATUSES.has(m.state.status))
    times.push(retentionDueAt(m.state.completed_at, sources.retentionMs()));
  if (sources.index.owed) times.push(now + INDEX_RETRY_MS);
  for (const id of m.state.running) {
    const rt = m.state.steps.get(id);
    // A question on the queue the run has not asked is sent again (expired-leases.ts) as a lost inline one is re-run.
    if (
      sources.inline.recoverable(m.state, id) ||
      (rt?.dispatch === 'queue' && rt.invoked && unasked(m.state, id))
    ) {
      times.push(now + INLINE_RECOVERY_MS);
      break;
    }
  }
  const due = times.filter((t): t is number => t !== null);
  return due.length > 0 ? Math.min(...due) : null;
}
