/**
 * How long a failed step waits before its retry: the run's backoff (`retry_delay`, doubling), or
 * longer when the tool's service said when to call again (a 429's or 503's `Retry-After`, carried as
 * the error's `retry_after_ms`). A service asking for more than {@link MAX_RETRY_AFTER_S} is not
 * waited for: the step moves on to its fallback or fails, the error saying why.
 */
import type { ErrorInfo } from '../errors';
import { MAX_RETRY_AFTER_S, MAX_WAIT_S } from '../plan/limits';

/**
 * The retry's wait in milliseconds, or null when the service asked for longer than a retry waits.
 * @example retryDelayMs(1, 0, { code: 'http_status', message: '429', retryable: true, retry_after_ms: 30_000 }) // 30000
 */
export function retryDelayMs(retryDelayS: number, retriesUsed: number, error: ErrorInfo): number | null {
  const asked = error.retry_after_ms ?? 0;
  if (asked > MAX_RETRY_AFTER_S * 1000) return null;
  const backoff = Math.round(Math.min(retryDelayS * 2 ** retriesUsed, MAX_WAIT_S) * 1000);
  return Math.max(backoff, asked);
}

/** The error a step fails with when its service asked to be left alone longer than a retry waits. */
export function notWaitedFor(error: ErrorInfo): ErrorInfo {
  const s = Math.ceil((error.retry_after_ms ?? 0) / 1000);
  return {
    ...error,
    message:
      `${error.message} — not retried: it asked to be called again in ${s} s (Retry-After), longer ` +
      `than a step's retry waits (${MAX_RETRY_AFTER_S} s); retry the run once it takes calls again`,
  };
}
