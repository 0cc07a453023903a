/**
 * Planning in process is bounded as in the run's object (test/workers-llm/durable-planning.test.ts):
 * each model call by the run's `planning_timeout_s`, and the planning as a whole by three of them, so
 * a planner that never answers fails the run instead of holding it in `planning` for ever.
 */
import { describe, expect, it } from 'vitest';
import { LocalRunner } from '../../src/index';
import type { DraftRequest, PlanProvider } from '../../src/index';
import { echo, manualTime, scriptedModelRunner, settle, step } from './library-helpers';
import { scriptedLlm } from './planner-helpers';

const types = (runner: LocalRunner) => runner.events.map((e) => e.event_type);

/** A runner on manual time whose planner answers only when told to. */
function heldRun() {
  const time = manualTime();
  const held = heldProvider();
  const runner = new LocalRunner({
    tools: [echo],
    planner: held.provider,
    clock: time.clock,
    timers: time.timers,
  });
  return { time, held, runner };
}

/** A plan provider that answers only when told to, recording the requests it was given. */
function heldProvider() {
  const requests: DraftRequest[] = [];
  let answer: () => void = () => {};
  const provider: PlanProvider = {
    draft: (r) => {
      requests.push(r);
      return new Promise((resolve) => {
        answer = () =>
          resolve({
            ok: true,
            plan: {
              id: 'plan_late',
              version: 1,
              goal: r.goal,
              strategy: 'flat',
              steps: [step('a', 't.echo')],
              created_at: '2026-01-01T00:00:00.000Z',
            },
            estimates: null,
          });
      });
    },
    revise: () => new Promise(() => {}),
  };
  return { provider, requests, answer: () => answer() };
}

describe('planning deadlines in process', () => {
  it('cuts a hung model call at the run’s planning_timeout_s, as the Worker does: the run fails naming the timeout, after one call', async () => {
    const llm = scriptedLlm([{ hang: true }, { hang: true }, { hang: true }]);
    const runner = scriptedModelRunner(llm.fetch);
    runner.start({
      goal: 'plan my holiday',
      config: { planning_timeout_s: 0.05, require_plan_approval: true },
    });

    const end = await runner.done();
    expect(end.status).toBe('failed');
    expect(runner.state.error?.code).toBe('planning_failed');
    expect(JSON.stringify(runner.state.error)).toContain('timed out');
    expect(llm.sent).toHaveLength(1);
  });

  it('fails a run whose planner never answers with planning_timeout at three planning_timeout_s, aborting it and ignoring its late answer', async () => {
    const { time, held, runner } = heldRun();
    runner.start({ goal: 'plan my holiday', config: { planning_timeout_s: 2 } });
    await settle();
    expect(runner.snapshot().status).toBe('planning');
    expect(time.armed()).toEqual([6_000]);

    time.fireNext();
    const end = await runner.done();
    expect(end.status).toBe('failed');
    expect(runner.state.error).toMatchObject({ code: 'planning_timeout' });
    expect(runner.state.error?.message).toMatch(
      /did not answer the plan within 6 s .*planning_timeout_s, which is 2/,
    );
    expect(held.requests[0]?.signal?.aborted).toBe(true);
    expect(held.requests[0]?.timeout_ms).toBe(2_000);
    expect(time.armed()).toEqual([]);

    const before = types(runner);
    held.answer();
    await settle();
    expect(types(runner)).toEqual(before);
    expect(before).not.toContain('PlanAuthored');
  });

  it('leaves no planning deadline behind once the planner answered in time', async () => {
    const { time, held, runner } = heldRun();
    runner.start({ goal: 'echo', config: { planning_timeout_s: 2 } });
    await settle();
    held.answer();
    const end = await runner.done();
    expect(end.status).toBe('completed');
    expect(time.armed()).toEqual([]);
  });
});
