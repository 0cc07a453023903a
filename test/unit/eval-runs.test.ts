import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/executor/registry';
import { LocalRunner } from '../../src/library/local-runner';
import type { Plan } from '../../src/plan/model';
import { attemptTools } from '../../scripts/eval/attempt-tools';
import { runPlan } from '../../scripts/eval/executor';
import { VirtualTime } from '../../scripts/eval/virtual-time';
import { ask, echo, flakyTool, gateTool, settle, step } from './library-helpers';

const START = Date.parse('2026-01-01T00:00:00.000Z');

function plan(steps: Plan['steps']): Plan {
  return {
    id: 'plan_t',
    version: 1,
    goal: 'g',
    strategy: 'flat',
    created_at: '2026-01-01T00:00:00.000Z',
    steps,
  };
}

function ids() {
  let n = 0;
  return {
    id: (p: string) => `${p}_${++n}`,
    uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  };
}

/** A LocalRunner on virtual time with the eval's wrapped tools. */
function virtualRunner(tools: ToolRegistry) {
  const time = new VirtualTime();
  const runner = new LocalRunner({
    tools: attemptTools(tools, { time, maxAttemptMs: 30_000 }),
    clock: time.clock,
    timers: time.timers,
    ids: ids(),
  });
  const invokedAt = (stepId: string) =>
    runner.events
      .filter((e) => e.event_type === 'ToolInvoked' && e.references.step_id === stepId)
      .map((e) => Date.parse(e.timestamp) - START);
  return { time, runner, invokedAt };
}

describe('eval runs on virtual time', () => {
  it('a retry ten minutes later runs at once, ten minutes later on the virtual clock', async () => {
    const flaky = flakyTool();
    const { time, runner, invokedAt } = virtualRunner(new ToolRegistry([flaky.tool]));
    runner.start({
      plan: { steps: [step('a', 't.flaky', { key: 'k', times: 1 })] },
      config: { retry_failed_steps: 1, retry_delay: 600 },
    });
    const end = await runner.done();
    expect(end.status).toBe('completed');
    expect(invokedAt('a')).toEqual([0, 600_000]);
    expect(time.clock.now().getTime() - START).toBe(600_000);
  });

  it('stands still while an attempt runs: a backoff waits for it, and its own deadline does not pass', async () => {
    const flaky = flakyTool();
    const gate = gateTool();
    const { time, runner, invokedAt } = virtualRunner(new ToolRegistry([flaky.tool, gate.tool]));
    runner.start({
      plan: { steps: [step('a', 't.flaky', { key: 'k', times: 1 }), step('b', 't.gate', { id: 'b' })] },
      config: { execution_mode: 'parallel', retry_failed_steps: 1, retry_delay: 600, step_timeout: 60 },
    });
    await gate.until(1);
    await settle(5);
    expect(flaky.calls.get('k')).toBe(1);
    expect(time.clock.now().getTime()).toBe(START);

    gate.releaseAll();
    const end = await runner.done();
    expect(end.status).toBe('completed');
    expect(invokedAt('b')).toEqual([0]);
    expect(invokedAt('a')).toEqual([0, 600_000]);
  });
});

describe('runPlan', () => {
  it('fails the attempts intercept answers, with its error, instead of running their tool', async () => {
    const calls: string[] = [];
    const tools = new ToolRegistry([
      {
        ...echo,
        run: (input: Record<string, unknown>, ctx) => (calls.push(ctx.stepId), echo.run(input, ctx)),
      },
    ]);
    const report = await runPlan({
      runId: 'r1',
      goal: 'g',
      plan: plan([step('a', 't.echo', { v: 1 }), step('b', 't.echo', { v: 2 }, ['a'])]),
      tools,
      ids: ids(),
      config: { retry_failed_steps: 0 },
      intercept: (a) =>
        a.step_id === 'b' ? { code: 'injected_failure', message: 'no', retryable: false } : undefined,
    });
    expect(report.status).toBe('failed');
    expect(report.step_statuses).toEqual({ a: 'completed', b: 'failed' });
    expect(report.error?.message).toContain('no');
    expect(calls).toEqual(['a']);
  });

  it('holds an attempt to maxAttemptMs of real time whatever its step allows', async () => {
    const gate = gateTool();
    const report = await runPlan({
      runId: 'r1',
      goal: 'g',
      plan: plan([step('a', 't.gate', { id: 'a' })]),
      tools: new ToolRegistry([gate.tool]),
      ids: ids(),
      config: { retry_failed_steps: 0, step_timeout: 3600 },
      maxAttemptMs: 1,
    });
    expect(report.status).toBe('failed');
    expect(report.error?.message).toContain('t.gate timed out after 1 ms');
  });

  it('returns once the run waits for a person, instead of waiting with it', async () => {
    const report = await runPlan({
      runId: 'r1',
      goal: 'g',
      plan: plan([step('q', 't.ask', { question: 'Colour?' })]),
      tools: new ToolRegistry([ask]),
      ids: ids(),
    });
    expect(report.status).toBe('awaiting_input');
  });
});
