import { describe, expect, it } from 'vitest';
import { LocalRunner } from '../../src/library/local-runner';
import { flakyTool, manualTime, settle, step } from './library-helpers';

const invokedAt = (runner: LocalRunner): number[] =>
  runner.events.filter((e) => e.event_type === 'ToolInvoked').map((e) => Date.parse(e.timestamp));

describe('LocalRunner timers option', () => {
  it('sets its wake-up on the injected timers: a 30 s backoff passes when that timer fires, on the injected clock', async () => {
    const time = manualTime();
    const flaky = flakyTool();
    const runner = new LocalRunner({ tools: [flaky.tool], clock: time.clock, timers: time.timers });
    runner.start({
      plan: { steps: [step('a', 't.flaky', { key: 'k', times: 1 })] },
      config: { retry_failed_steps: 1, retry_delay: 30 },
    });
    await settle();
    expect(time.armed()).toEqual([30_000]);
    expect(flaky.calls.get('k')).toBe(1);
    expect(runner.snapshot().status).toBe('running');

    time.fireNext();
    const end = await runner.done();
    expect(end.status).toBe('completed');
    const [first, retry] = invokedAt(runner);
    expect(retry! - first!).toBe(30_000);
    expect(time.armed()).toEqual([]);
  });

  it('a sub-plan’s run uses the same timers', async () => {
    const time = manualTime();
    const flaky = flakyTool();
    const runner = new LocalRunner({ tools: [flaky.tool], clock: time.clock, timers: time.timers });
    runner.start({
      plan: {
        steps: [
          {
            ...step('outer', 't.flaky', { key: 'outer', times: 0 }),
            subplan: { steps: [step('inner', 't.flaky', { key: 'inner', times: 1 })] },
          },
        ],
      },
      config: { retry_failed_steps: 1, retry_delay: 30, max_depth: 1 },
    });
    // The child starts once its run id is derived (an asynchronous hash): wait for its first attempt.
    for (let i = 0; i < 200 && !flaky.calls.has('inner'); i++) await settle(1);
    await settle();
    // The parent's timer and the child's limit at the sub-plan's deadline, the child's at its retry.
    expect(time.armed()).toContain(30_000);
    expect(flaky.calls.get('inner')).toBe(1);

    time.fireNext();
    const end = await runner.done();
    expect(end.status).toBe('completed');
    expect(flaky.calls.get('inner')).toBe(2);
  });
});
