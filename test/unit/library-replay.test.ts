import { describe, expect, it } from 'vitest';
import { replay, snapshotRun } from '../../src/engine/snapshot';
import { executionStateOf, stepResultsOf } from '../../src/library/execution-state';
import { LocalRunner } from '../../src/library/local-runner';
import { PlanningPattern } from '../../src/library/planning-pattern';
import { echo, fail, flakyTool, scriptedPlanner, step } from './library-helpers';

describe('the library and the engine agree', () => {
  it('folding the events of an in-process run reproduces its state exactly', async () => {
    const flaky = flakyTool();
    const runner = new LocalRunner({ tools: [echo, fail, flaky.tool] });
    runner.start({
      runId: 'run_replay',
      plan: {
        goal: 'everything at once',
        steps: [
          step('a', 't.echo', { v: 1 }),
          step('b', 't.flaky', { key: 'b', times: 1 }),
          { ...step('c', 't.fail'), fallback_action: 't.echo' },
          { ...step('d', 't.echo', { from: '{{ steps.a.output.v }}' }), output_path: 'state.d' },
          step('e', 't.echo', { d: '{{ state.d }}' }),
          step('f', 't.fail'),
          step('g', 't.echo', {}, ['f']),
        ],
      },
      config: { execution_mode: 'parallel', max_parallel: 3, retry_delay: 0.001, continue_on_failure: true },
      input: { who: 'test' },
    });
    const live = await runner.done();

    const folded = replay(runner.events);
    expect(snapshotRun(folded.state, folded.results)).toEqual(live);
    // …and seed 000's views of it, which the pattern builds from the same two things.
    expect(stepResultsOf(snapshotRun(folded.state, folded.results))).toEqual(stepResultsOf(live));
    expect(live.step_statuses).toEqual({
      a: 'completed',
      b: 'completed',
      c: 'completed',
      d: 'completed',
      e: 'completed',
      f: 'failed',
      g: 'skipped',
    });
    expect(runner.events.map((e) => e.seq)).toEqual(runner.events.map((_, i) => i + 1));
  });

  it('a PlanningPattern result (with a revision) is the fold of its own events', async () => {
    const { planner } = scriptedPlanner(
      [step('a', 't.echo', { v: 1 }), step('b', 't.fail', {}, ['a'])],
      [step('a', 't.echo', { v: 1 }), step('c', 't.echo', {}, ['a'])],
    );
    const result = await new PlanningPattern({ executionMode: 'parallel' }).execute(
      { tools: [echo, fail], planner },
      'g',
    );

    const folded = replay(result.events);
    const snapshot = snapshotRun(folded.state, folded.results);
    expect(executionStateOf(snapshot, result.events)).toEqual(result.executionState);
    expect(stepResultsOf(snapshot)).toEqual(result.stepResults);
    expect(snapshot.plan).toEqual(result.finalPlan);
    expect(result.revisionCount).toBe(1);
  });

  it('the state at any earlier seq is the fold of the events up to it', async () => {
    const runner = new LocalRunner({ tools: [echo] });
    runner.start({ plan: { steps: [step('a', 't.echo'), step('b', 't.echo', {}, ['a'])] } });
    await runner.done();

    const scheduledB = runner.events.find(
      (e) => e.event_type === 'StepScheduled' && e.payload.step_id === 'b',
    )!;
    const at = replay(runner.events, { at: scheduledB.seq });
    expect(at.state.steps.get('a')?.status).toBe('completed');
    expect(at.state.steps.get('b')?.status).toBe('running');
  });
});
