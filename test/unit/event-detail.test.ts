import { describe, expect, it } from 'vitest';
import { eventDetail } from '../../src/client/event-detail';
import type { RunEvent } from '../../src/client/types';

const retried = (delay_ms: number, retry_after_ms?: number): RunEvent => ({
  event_id: 'evt_3',
  seq: 3,
  event_type: 'StepRetried',
  timestamp: '2026-11-30T20:00:00.000Z',
  actor: 'scheduler',
  references: { plan_id: 'plan_1', plan_version: 1, step_id: 'a' },
  payload: {
    step_id: 'a',
    attempt: 2,
    retry_at: 0,
    delay_ms,
    error: {
      code: 'http_status',
      message: 'GET https://api.test/x answered 429',
      retryable: true,
      ...(retry_after_ms === undefined ? {} : { retry_after_ms }),
    },
  },
});

describe("a retry's line says when, and why that long", () => {
  it('names the wait of the backoff', () => {
    expect(eventDetail(retried(2000))).toBe(
      'attempt 2 in 2.0s — http_status: GET https://api.test/x answered 429',
    );
  });

  it("says the wait was the service's Retry-After when it set it", () => {
    expect(eventDetail(retried(30_000, 30_000))).toBe(
      'attempt 2 in 30.0s (Retry-After) — http_status: GET https://api.test/x answered 429',
    );
    // The backoff was longer than what the service asked: the backoff's wait, not said as asked.
    expect(eventDetail(retried(4000, 1000))).toBe(
      'attempt 2 in 4.0s — http_status: GET https://api.test/x answered 429',
    );
  });
});
