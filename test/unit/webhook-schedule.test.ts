import { describe, expect, it } from 'vitest';
import { nextWebhookAttempt, WEBHOOK_MAX_ATTEMPTS } from '../../src/approval/webhook-schedule';

const HOUR = 3600_000;
const retryable = { retryable: true };

/** Every attempt's time for a receiver that never takes the webhook, from t = 0. */
function schedule(deadlineAt: number | null): number[] {
  const at = [0];
  for (let next = nextWebhookAttempt(1, 0, retryable, deadlineAt); next !== null;) {
    at.push(next);
    next = nextWebhookAttempt(at.length, next, retryable, deadlineAt);
  }
  return at;
}

describe('approval webhook retry schedule', () => {
  it('doubles from a second up to an hour', () => {
    const at = schedule(null);
    const waits = at.slice(1).map((t, i) => t - at[i]!);
    expect(waits.slice(0, 4)).toEqual([1000, 2000, 4000, 8000]);
    expect(waits[11]).toBe(2048_000);
    expect(waits[12]).toBe(HOUR);
    expect(Math.max(...waits)).toBe(HOUR);
  });

  it('stops after about three days when the approval has no deadline', () => {
    const at = schedule(null);
    expect(at).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
    expect(at.at(-1)! / HOUR).toBeGreaterThan(71);
    expect(at.at(-1)! / HOUR).toBeLessThan(73);
  });

  it('stops after about three days however far the deadline is: a dead receiver costs a bounded number of events', () => {
    // Before: every 10 minutes until the deadline — 52,000 attempts for a year.
    expect(schedule(365 * 24 * HOUR)).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
  });

  it('stops before the approval deadline', () => {
    const at = schedule(2 * HOUR);
    expect(at.at(-1)!).toBeLessThan(2 * HOUR);
    expect(nextWebhookAttempt(at.length, at.at(-1)!, retryable, 2 * HOUR)).toBeNull();
    expect(at.length).toBeLessThan(WEBHOOK_MAX_ATTEMPTS);
  });

  it('waits as long as the receiver asked, up to an hour', () => {
    expect(nextWebhookAttempt(1, 0, { retryable: true, retryAfterMs: 120_000 }, null)).toBe(120_000);
    expect(nextWebhookAttempt(1, 0, { retryable: true, retryAfterMs: 5 * HOUR }, null)).toBe(HOUR);
  });

  it('does not try again after a refusal', () => {
    expect(nextWebhookAttempt(1, 0, { retryable: false }, null)).toBeNull();
  });
});
