/**
 * `RUN_RETENTION_DAYS`: how long an ended run is kept. Unset, runs are kept until deleted (and nothing
 * here costs anything); set, an ended run's object keeps an alarm for `completed_at` + that long, and
 * deletes itself when it fires (src/durable/run-deletion.ts). A retried run is no longer ended, so the
 * alarm finds nothing to delete and is re-armed for what the run has due instead. A run that ended
 * before the variable was set is armed when next loaded: the Cron Trigger's sweep loads those
 * (retention-sweep.ts).
 */
import { log } from '../log';

const DAY_MS = 86_400_000;
/** Values already reported as unreadable (logged once per isolate, not at every alarm). */
const reported = new Set<string>();

/**
 * The retention in milliseconds, or null when unset. A value that is not a positive number of days
 * (`30`, `0.5`) deletes nothing — a typo must not delete runs — and is logged with what to set.
 * @example retentionMs({ RUN_RETENTION_DAYS: '30' }) // 2_592_000_000
 */
export function retentionMs(env: { RUN_RETENTION_DAYS?: string | undefined }): number | null {
  const raw = env.RUN_RETENTION_DAYS;
  if (raw === undefined || raw.trim() === '') return null;
  const days = Number(raw);
  if (Number.isFinite(days) && days > 0) return days * DAY_MS;
  if (!reported.has(raw)) {
    reported.add(raw);
    log(
      'retention_invalid',
      `RUN_RETENTION_DAYS is "${raw}": expected a positive number of days (e.g. 30, or 0.5 for 12 hours); no run is deleted by age until it is one`,
    );
  }
  return null;
}

/** When an ended run is due for deletion (epoch ms); null when it has not ended or nothing is kept. */
export function retentionDueAt(completedAt: string | null, ms: number | null): number | null {
  if (ms === null || completedAt === null) return null;
  const ended = Date.parse(completedAt);
  return Number.isFinite(ended) ? ended + ms : null;
}
