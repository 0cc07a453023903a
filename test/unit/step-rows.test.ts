import { describe, expect, it } from 'vitest';
import { compactRuntime, expandRuntime } from '../../src/durable/persist';
import { newStepRuntime, type StepRuntime } from '../../src/engine/state';

describe('step rows', () => {
  it('store only what differs from a new step, and read back the same runtime', () => {
    const fresh = { ...newStepRuntime(), waiting: 1 };
    expect(compactRuntime(fresh)).toEqual({ waiting: 1 });
    const done: StepRuntime = {
      ...newStepRuntime(),
      status: 'failed',
      attempt: 2,
      retries_used: 1,
      handled: true,
      started_at: '2026-01-01T00:00:00.000Z',
      finished_at: '2026-01-01T00:00:01.000Z',
      error: { code: 'boom', message: 'no', retryable: false },
      latency_ms: 12,
      dispatch: 'queue',
    };
    for (const rt of [newStepRuntime(), fresh, done]) {
      expect(expandRuntime(JSON.parse(JSON.stringify(compactRuntime(rt))) as Partial<StepRuntime>)).toEqual(
        rt,
      );
    }
  });

  it('keep every field of a runtime that is not a new step’s', () => {
    const changed: Record<string, unknown> = {
      status: 'running',
      attempt: 3,
      waiting: 2,
      retries_used: 1,
      fallback_used: true,
      on_fallback: true,
      handled: true,
      invoked: true,
      retry_at: 5,
      deadline_at: 6,
      limit_ms: 60_000,
      started_at: 'a',
      finished_at: 'b',
      error: { code: 'x', message: 'y', retryable: true },
      latency_ms: 7,
      skip_reason: 'when_false',
      dispatch: 'inline',
      key_version: 2,
      visit: 3,
    };
    expect(Object.keys(changed).sort()).toEqual(Object.keys(newStepRuntime()).sort());
    for (const [key, value] of Object.entries(changed)) {
      const rt = { ...newStepRuntime(), [key]: value };
      expect(compactRuntime(rt)).toEqual({ [key]: value });
    }
  });

  it('read rows written whole, as they were before', () => {
    const whole = { ...newStepRuntime(), status: 'completed' as const, attempt: 1 };
    expect(expandRuntime(JSON.parse(JSON.stringify(whole)) as Partial<StepRuntime>)).toEqual(whole);
  });
});
