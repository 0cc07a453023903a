/**
 * The `Retry-After` header (RFC 9110 §10.2.3) as a wait in milliseconds: delay-seconds (`60`) or an
 * HTTP date (`Sun, 29 Nov 2026 23:00:00 GMT`, counted from `now`). Anything else — empty, negative,
 * a date that does not parse — is no instruction: undefined, and the client backs off on its own.
 */

/**
 * @example retryAfterMs('60') // 60000
 * @example retryAfterMs('Sun, 29 Nov 2026 23:00:00 GMT', Date.parse('2026-11-29T22:59:30Z')) // 30000
 */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  const text = value?.trim() ?? '';
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only a date has letters in it: "1.5" or "-3" are neither form, not a date of the year 1.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Whether a retry waits as long as its tool's service asked (`Retry-After`), not the run's backoff:
 * its `StepRetried` delay is the error's `retry_after_ms`.
 * @example waitedAsAsked({ delay_ms: 30_000, error: { retry_after_ms: 30_000 } }) // true
 */
export function waitedAsAsked(retried: { delay_ms: number; error: { retry_after_ms?: number } }): boolean {
  return retried.error.retry_after_ms !== undefined && retried.delay_ms === retried.error.retry_after_ms;
}
