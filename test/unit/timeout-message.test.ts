import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { beginAttempt } from '../../src/engine/begin-attempt';
import type { RunSnapshot } from '../../src/engine/snapshot';
import { defineTool, ToolRegistry } from '../../src/executor/registry';
import { executeTool } from '../../src/executor/run-step';
import type { BegunAttempt } from '../../src/library/attempt';
import { runSubplan, type ChildRun } from '../../src/library/subplan';
import { echo, harness } from './engine-helpers';
import type { RunEvent } from '../../src/engine/events';

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

  describe('a tool with its own limit, timed out past its call', () => {
    const own = defineTool({ ...never, name: 'test.own', timeout_ms: 3_600_000 });
    const timedOut = (events: RunEvent[], attempt: number) =>
      events.find(
        (e) => e.event_type === 'ToolReturned' && e.payload.step_id === 'b' && e.payload.attempt === attempt,
      )?.payload as { error?: { message: string }; latency_ms: number } | undefined;

    it('names the tool’s limit and reports it as the latency, not the step_timeout', () => {
      const h = harness(
        { steps: [{ id: 'b', action: 'test.own' }] },
        { step_timeout: 2, retry_failed_steps: 0 },
      );
      const r = beginAttempt(h.state, h.results, new ToolRegistry([own]), 'b', 1, h.now());
      for (const input of r.inputs) h.events.push(...h.machine.handle(input).events);
      const invoked = h.events.find((e) => e.event_type === 'ToolInvoked')!;
      expect(invoked.payload).toMatchObject({ deadline_at: h.now() + 3_600_000, limit_ms: 3_600_000 });
      // Past the step_timeout, the attempt still waits: its deadline is the tool's.
      h.advance(2_001);
      expect(timedOut(h.events, 1)).toBeUndefined();
      h.advance(3_600_000);
      expect(timedOut(h.events, 1)).toMatchObject({
        error: { message: 'Step "b" attempt 1 timed out after 3600000 ms' },
        latency_ms: 3_600_000,
      });
    });

    it('does not lend that limit to the next attempt, whose deadline is the step_timeout again', () => {
      const h = harness(
        { steps: [{ id: 'b', action: 'test.own', fallback_action: 'demo.echo' }] },
        { step_timeout: 2, retry_failed_steps: 0 },
      );
      const r = beginAttempt(h.state, h.results, new ToolRegistry([own]), 'b', 1, h.now());
      for (const input of r.inputs) h.events.push(...h.machine.handle(input).events);
      h.advance(3_600_001);
      expect(timedOut(h.events, 1)?.latency_ms).toBe(3_600_000);
      // The fallback (attempt 2) is scheduled; it is never begun, and times out on the step's limit.
      expect(h.state.steps.get('b')).toMatchObject({ attempt: 2, on_fallback: true });
      h.advance(2_001);
      expect(timedOut(h.events, 2)).toMatchObject({
        error: { message: 'Step "b" attempt 2 timed out after 2000 ms' },
        latency_ms: 2_000,
      });
    });

    it('names the step_timeout for an attempt invoked before the limit was recorded (stored runs)', () => {
      const h = harness(
        { steps: [{ id: 'b', action: 'test.own' }] },
        { step_timeout: 2, retry_failed_steps: 0 },
      );
      // A ToolInvoked as releases before limit_ms wrote it: the moved deadline alone.
      const stored = h.machine.handle({
        type: 'invoked',
        step_id: 'b',
        attempt: 1,
        tool: 'test.own',
        parameters: {},
        idempotency_key: 'run_1:b',
        deadline_at: h.now() + 3_600_000,
      });
      h.events.push(...stored.events);
      expect(stored.events[0]!.payload).not.toHaveProperty('limit_ms');
      h.advance(3_600_001);
      expect(timedOut(h.events, 1)).toMatchObject({
        error: { message: 'Step "b" attempt 1 timed out after 2000 ms' },
        latency_ms: 2_000,
      });
    });
  });
});
