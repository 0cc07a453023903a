/**
 * `PlanningPattern.generatePlan` asks the planner outside a run, and is bounded as a run's planning
 * is: three `planning_timeout_s` (180 s by default), then the planner's signal is aborted and the call
 * fails with `planning_timeout` instead of never settling. Fake timers stand in for the three minutes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EdgeplanError, PlanningPattern, ToolRegistry } from '../../src/index';
import type { DraftRequest, PlanProvider } from '../../src/index';
import { echo } from './library-helpers';

afterEach(() => {
  vi.useRealTimers();
});

/** A plan provider that never answers, keeping the requests it was given. */
function silentProvider() {
  const requests: DraftRequest[] = [];
  const planner: PlanProvider = {
    draft: (r) => {
      requests.push(r);
      return new Promise(() => {});
    },
    revise: () => new Promise(() => {}),
  };
  return { planner, requests };
}

describe('generatePlan has a planning deadline', () => {
  it('fails with planning_timeout after three planning_timeout_s, and aborts the planner’s work', async () => {
    vi.useFakeTimers();
    const { planner, requests } = silentProvider();
    const pattern = new PlanningPattern();
    let outcome: unknown = 'pending';
    const call = pattern.generatePlan({ tools: new ToolRegistry([echo]), planner }, 'say hi').then(
      () => (outcome = 'resolved'),
      (err: unknown) => (outcome = err),
    );

    await vi.advanceTimersByTimeAsync(179_999);
    expect(outcome).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    await call;

    expect(outcome).toBeInstanceOf(EdgeplanError);
    expect((outcome as EdgeplanError).code).toBe('planning_timeout');
    expect((outcome as EdgeplanError).message).toContain(
      'within 180 s (3 × planning_timeout_s, which is 60)',
    );
    expect(requests[0]?.signal?.aborted).toBe(true);
  });

  it('passes the caller’s signal on to the planner, and its abort ends the call', async () => {
    const { planner, requests } = silentProvider();
    const caller = new AbortController();
    const call = new PlanningPattern().generatePlan({ tools: new ToolRegistry([echo]), planner }, 'say hi', {
      signal: caller.signal,
    });
    caller.abort(new Error('changed my mind'));
    await expect(call).rejects.toThrow('changed my mind');
    expect(requests[0]?.signal?.aborted).toBe(true);
  });
});
