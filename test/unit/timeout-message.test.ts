import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { beginAttempt } from '../../src/engine/begin-attempt';
import type { RunSnapshot } from '../../src/engine/snapshot';
import { defineTool, ToolRegistry } from '../../src/executor/registry';
import { executeTool } from '../../src/executor/run-step';
import type { BegunAttempt } from '../../src/library/attempt';
import { runSubplan, type ChildRun } from '../../src/library/subplan';
import { echo, harness } from './engine-helpers';

/**
 * A timeout's message names the step's time limit as configured (the figure the user wrote), not what
 * was left of it when the attempt began — a queue hop or a redelivery takes some of it, and "timed
 * out after 499 ms" for a 500 ms step named a figure nobody wrote. The deadline itself is unchanged.
 */
describe('a timeout names the configured limit', () => {
  const never = defineTool({
    name: 'test.never',
    description: 'never settles',
    version: '1',
    input: z.object({}),
    idempotent: true,
    deterministic: true,
    run: () => new Promise(() => {}),
  });

  it('an attempt begun late keeps its deadline and carries the step’s limit beside it', () => {
    const h = harness({ steps: [echo('a', { timeout_ms: 500 })] });
    const rt = h.state.steps.get('a')!;
    const r = beginAttempt(h.state, h.results, new ToolRegistry([]), 'a', rt.attempt, h.now() + 1);
    expect(r.begun).toMatchObject({ timeout_ms: 499, limit_ms: 500 });
  });

  it('the run’s step_timeout when the step sets none, and a tool’s own limit when it has one', () => {
    const h = harness(
      { steps: [echo('a', { dependencies: [] }), { id: 'b', action: 'test.own', dependencies: [] }] },
      { step_timeout: 2, execution_mode: 'parallel' },
    );
    expect(h.state.steps.get('b')!.status).toBe('running');
    const own = defineTool({ ...never, name: 'test.own', timeout_ms: 3_600_000 });
    const tools = new ToolRegistry([own]);
    const a = beginAttempt(h.state, h.results, tools, 'a', 1, h.now() + 5);
    expect(a.begun).toMatchObject({ timeout_ms: 1995, limit_ms: 2000 });
    const b = beginAttempt(h.state, h.results, tools, 'b', 1, h.now() + 5);
    expect(b.begun).toMatchObject({ timeout_ms: 3_600_000, limit_ms: 3_600_000 });
  });

  it('executeTool stops at what is left, and says the limit', async () => {
    vi.useFakeTimers();
    try {
      const pending = executeTool(
        never,
        {},
        { runId: 'r', stepId: 's', attempt: 1, idempotencyKey: 'r:s', env: {}, timeoutMs: 3, limitMs: 500 },
      );
      await vi.advanceTimersByTimeAsync(3);
      expect(await pending).toMatchObject({
        success: false,
        error: { code: 'timeout', retryable: true, message: 'test.never timed out after 500 ms' },
      });
    } finally {
      vi.useRealTimers();
    }
  });

  it('an in-process child run stops at what is left, and says the limit', async () => {
    const fires: (() => void)[] = [];
    const delays: number[] = [];
    const timers = {
      set: (fire: () => void, ms: number) => {
        fires.push(fire);
        delays.push(ms);
        return fires.length;
      },
      clear: () => {},
    };
    let ended!: (s: RunSnapshot) => void;
    const child: ChildRun = {
      start: () => {},
      done: () => new Promise<RunSnapshot>((resolve) => (ended = resolve)),
      cancel: () => ended({ status: 'cancelled' } as RunSnapshot),
    };
    const a: BegunAttempt = {
      runId: 'run_1',
      step: { id: 'outer', description: 'outer', action: 'agent.dispatch', parameters: {}, dependencies: [] },
      attempt: 1,
      fallback: false,
      first: true,
      action: 'agent.dispatch',
      parameters: { plan: { steps: [] } },
      idempotencyKey: 'run_1:outer',
      timeoutMs: 97,
      limitMs: 100,
    };
    const pending = runSubplan(a, () => child, new AbortController().signal, timers);
    await vi.waitFor(() => expect(fires).toHaveLength(1));
    expect(delays).toEqual([97]);
    fires[0]!();
    expect(await pending).toMatchObject({
      success: false,
      error: { code: 'timeout', message: 'agent.dispatch timed out after 100 ms' },
    });
  });
});
