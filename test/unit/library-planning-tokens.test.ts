/**
 * What a planning cut short spent is counted in process as in the run's object
 * (test/workers-llm/ended-run-tokens.test.ts): a run cancelled while its planning's repair is with the
 * model counts the call already answered, on its `RunTerminated`; a planning past its deadline counts
 * its answered calls in the failure it ends with.
 */
import { describe, expect, it } from 'vitest';
import { LocalRunner, replay } from '../../src/index';
import type { PlanProvider } from '../../src/index';
import { echo, manualTime, scriptedModelRunner, settle, step } from './library-helpers';
import { planJson, scriptedLlm } from './planner-helpers';

describe('tokens of a planning cut short, in process', () => {
  it('a run cancelled while its planning’s repair is with the model counts the call already answered, on its RunTerminated', async () => {
    // A plan naming no tool there is (100 + 20 tokens), then its repair hangs.
    const llm = scriptedLlm([planJson([step('a', 'no.such_tool')]), { hang: true }]);
    const runner = scriptedModelRunner(llm.fetch);
    runner.start({ goal: 'echo', config: { require_plan_approval: true } });
    for (let i = 0; i < 200 && llm.sent.length < 2; i++) await settle(5);
    expect(llm.sent).toHaveLength(2);

    expect(runner.cancel('changed my mind')).toBeUndefined();
    const end = await runner.done();
    expect(end.status).toBe('cancelled');
    expect(end.token_usage).toEqual({ prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 });
    const ended = runner.events.at(-1);
    expect(ended?.event_type === 'RunTerminated' && ended.payload.tokens).toEqual({
      prompt: 100,
      completion: 20,
    });
    expect(replay(runner.events).state.token_usage).toEqual(end.token_usage);
  });

  it('a planning past its deadline fails with what its answered calls spent', async () => {
    const time = manualTime();
    const planner: PlanProvider = {
      draft: (r) => {
        r.on_spent?.({ prompt: 7, completion: 3 });
        return new Promise(() => {});
      },
      revise: () => new Promise(() => {}),
    };
    const runner = new LocalRunner({ tools: [echo], planner, clock: time.clock, timers: time.timers });
    runner.start({ goal: 'echo', config: { planning_timeout_s: 1 } });
    await settle();
    time.fireNext();
    const end = await runner.done();
    expect(runner.state.error?.code).toBe('planning_timeout');
    expect(end.token_usage).toEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
    expect(replay(runner.events).state.token_usage).toEqual(end.token_usage);
  });
});
