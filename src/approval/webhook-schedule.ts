/**
 * When a failed approval-webhook delivery is tried again: from 1 s, doubling up to an hour (or longer
 * when the receiver asked, `Retry-After`, up to the hour a step's retry may wait), for about three days
 * ({@link WEBHOOK_MAX_ATTEMPTS}) or until the approval's deadline, whichever comes first. A receiver
 * that comes back gets the webhook within the hour; one that is gone for good costs a bounded number of
 * attempts — and events — even when the approval may wait a year.
 */
import { MAX_RETRY_AFTER_S } from '../plan/limits';

/** The first retry of a failed delivery; each next one waits twice as long, up to the cap. */
const WEBHOOK_RETRY_MS = 1_000;
const WEBHOOK_RETRY_CAP_MS = 3600_000;
/**
 * Deliveries tried at most: the first 13 while the wait doubles (68 minutes in all), then hourly —
 * about three days, as webhook senders commonly retry for.
 */
export const WEBHOOK_MAX_ATTEMPTS = 84;

/**
 * When attempt `attempt + 1` is due, after attempt `attempt` failed at `now` (null: not again) —
 * `retryable` the failure, `retryAfterMs` what the receiver asked, `deadlineAt` the approval's deadline.
 */
export function nextWebhookAttempt(
  attempt: number,
  now: number,
  failure: { retryable: boolean; retryAfterMs?: number | undefined },
  deadlineAt: number | null,
): number | null {
  if (!failure.retryable || attempt >= WEBHOOK_MAX_ATTEMPTS) return null;
  const asked = Math.min(failure.retryAfterMs ?? 0, MAX_RETRY_AFTER_S * 1000);
  const backoff = Math.min(WEBHOOK_RETRY_MS * 2 ** Math.min(attempt - 1, 32), WEBHOOK_RETRY_CAP_MS);
  const next = now + Math.max(backoff, asked);
  return deadlineAt !== null && next >= deadlineAt ? null : next;
}
