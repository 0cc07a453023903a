import { describe, expect, it } from 'vitest';
import type { Plan, PlanStep } from '../../src/plan/model';
import { PlanningCallbacks } from '../../src/library/callbacks';
import type { StepResult } from '../../src/library/execution-state';
import { PlanningPattern } from '../../src/library/planning-pattern';
import { echo, fail, scriptedPlanner, step } from './library-helpers';

const tools = [echo, fail];

/** Callbacks that write down every call, in order. */
function recorder(overrides: Partial<PlanningCallbacks> = {}) {
  const calls: string[] = [];
  const results: Record<string, StepResult> = {};
  const callbacks: Partial<PlanningCallbacks> = {
    onPlanGenerated: (plan: Plan) => {
      calls.push(`generated v${plan.version}`);
      return plan;
    },
    onPlanApproved: (plan: Plan) => {
      calls.push(`approval asked for ${plan.steps.length} steps`);
      return true;
    },
    onStepStart: async (s: PlanStep) => {
      await Promise.resolve();
      calls.push(`start ${s.id}`);
    },
    onStepComplete: (s: PlanStep, r: StepResult) => {
      calls.push(`complete ${s.id} ${r.status}`);
      results[s.id] = r;
    },
    ...overrides,
  };
  return { calls, results, callbacks };
}

describe('PlanningPattern callbacks', () => {
  it('fire in order: generated, approved, then start and complete for each step', async () => {
    const { planner } = scriptedPlanner([
      step('a', 't.echo', { n: 1 }),
      step('b', 't.echo', { n: 2 }, ['a']),
    ]);
    const { calls, callbacks } = recorder();
    const pattern = new PlanningPattern({ requirePlanApproval: true, callbacks });

    const result = await pattern.execute({ tools, planner }, 'two steps');

    expect(result.success).toBe(true);
    expect(calls).toEqual([
      'generated v1',
      'approval asked for 2 steps',
      'start a',
      'complete a completed',
      'start b',
      'complete b completed',
    ]);
  });

  it('onPlanGenerated may change the plan, and the changed plan is the one validated and executed', async () => {
    const { planner } = scriptedPlanner([step('a', 't.echo', { n: 1 })]);
    const pattern = new PlanningPattern({
      callbacks: {
        onPlanGenerated: (plan) => ({
          ...plan,
          steps: [...plan.steps, step('extra', 't.echo', { from: '{{ steps.a.output.n }}' })],
        }),
      },
    });

    const result = await pattern.execute({ tools, planner }, 'grow the plan');

    expect(result.plan.steps.map((s) => s.id)).toEqual(['a', 'extra']);
    expect(result.plan.version).toBe(1);
    expect(result.stepResults.extra).toMatchObject({ status: 'completed', output: { from: 1 } });
    expect(result.finalOutput).toBe('{"from":1}');
  });

  it('a plan onPlanGenerated breaks is refused with its findings, and nothing runs', async () => {
    const { planner } = scriptedPlanner([step('a', 't.echo')]);
    const { calls, callbacks } = recorder({
      onPlanGenerated: (plan: Plan) => ({ ...plan, steps: [step('a', 'no.such.tool')] }),
    });
    const pattern = new PlanningPattern({ callbacks });

    await expect(pattern.execute({ tools, planner }, 'g')).rejects.toMatchObject({
      code: 'invalid_plan',
      message: expect.stringContaining('The plan onPlanGenerated returned has 1 finding(s): unknown_tool'),
    });
    expect(calls.filter((c) => c.startsWith('start'))).toEqual([]);
  });

  it("a plan onPlanGenerated returns is held to the run's input, as the planner's is", async () => {
    // `message` is a string; the input gives a number, which a whole reference would pass as it is.
    const failing = step('x', 't.fail', { message: '{{ input.n }}' });
    const finding =
      'bad_reference: Step "x": {{ input.n }} is a number but parameters.message of tool t.fail expects a string (as the run\'s input gives it)';
    const edited = recorder({ onPlanGenerated: (plan: Plan) => ({ ...plan, steps: [failing] }) });
    const { planner } = scriptedPlanner([step('a', 't.echo')]);
    await expect(
      new PlanningPattern({ callbacks: edited.callbacks }).execute({ tools, planner }, 'g', {
        input: { n: 5 },
      }),
    ).rejects.toMatchObject({
      code: 'invalid_plan',
      message: `The plan onPlanGenerated returned has 1 finding(s): ${finding}`,
    });
    expect(edited.calls.filter((c) => c.startsWith('start'))).toEqual([]);
    // The planner's own plan is checked the same way before onPlanGenerated sees it.
    const own = recorder();
    await expect(
      new PlanningPattern({ callbacks: own.callbacks }).execute(
        { tools, planner: scriptedPlanner([failing]).planner },
        'g',
        { input: { n: 5 } },
      ),
    ).rejects.toMatchObject({ code: 'invalid_plan', message: `The planner's plan is invalid (${finding})` });
    expect(own.calls).toEqual([]);
  });

  it('onPlanApproved returning false rejects the plan: no step starts and the result says why', async () => {
    const { planner } = scriptedPlanner([step('a', 't.echo')]);
    const { calls, callbacks } = recorder({ onPlanApproved: () => false });
    const pattern = new PlanningPattern({ requirePlanApproval: true, callbacks });

    const result = await pattern.execute({ tools, planner }, 'g');

    expect(result).toMatchObject({ success: false, status: 'cancelled', error: { code: 'plan_rejected' } });
    expect(result.stepResults.a?.status).toBe('skipped'); // never started: the rejection cancelled the run;
    expect(calls).toEqual(['generated v1']);
    expect(result.events.map((e) => e.event_type)).toEqual([
      'RunCreated',
      'PlanAuthored',
      'PlanValidated',
      'ApprovalRequested',
      'ApprovalRejected',
      'RunTerminated',
    ]);
  });

  it('onPlanApproved is not asked when requirePlanApproval is off', async () => {
    const { planner } = scriptedPlanner([step('a', 't.echo')]);
    let asked = false;
    const pattern = new PlanningPattern({ callbacks: { onPlanApproved: () => (asked = true) } });
    const result = await pattern.execute({ tools, planner }, 'g');
    expect(result.success).toBe(true);
    expect(asked).toBe(false);
  });

  it('onStepComplete gets each step’s result: the output on success, the error on failure', async () => {
    const { planner } = scriptedPlanner([
      step('ok', 't.echo', { v: 'x' }),
      step('bad', 't.fail', { message: 'no' }),
    ]);
    const { results, callbacks } = recorder();
    const pattern = new PlanningPattern({ continueOnFailure: true, callbacks });

    await pattern.execute({ tools, planner }, 'g');

    expect(results.ok).toMatchObject({
      stepId: 'ok',
      success: true,
      output: { v: 'x' },
      error: null,
      attempts: 1,
    });
    expect(results.bad).toMatchObject({
      stepId: 'bad',
      success: false,
      status: 'failed',
      output: null,
      error: { code: 'boom', message: 'no' },
    });
  });

  it('a class extending PlanningCallbacks keeps `this`, and unset methods fall back to the defaults', async () => {
    class Counting extends PlanningCallbacks {
      started = 0;
      override onStepStart(): void {
        this.started += 1;
      }
    }
    const cb = new Counting();
    const { planner } = scriptedPlanner([step('a', 't.echo'), step('b', 't.echo')]);
    const result = await new PlanningPattern({ requirePlanApproval: true }).execute(
      { tools, planner, callbacks: cb },
      'g',
    );
    expect(result.success).toBe(true); // the default onPlanApproved approves
    expect(cb.started).toBe(2);
  });

  it('an agent’s callbacks take precedence over the pattern’s, one callback at a time', async () => {
    const seen: string[] = [];
    const { planner } = scriptedPlanner([step('a', 't.echo')]);
    const pattern = new PlanningPattern({
      callbacks: {
        onStepStart: () => void seen.push('pattern start'),
        onStepComplete: () => void seen.push('pattern complete'),
      },
    });
    await pattern.execute(
      { tools, planner, callbacks: { onStepStart: () => void seen.push('agent start') } },
      'g',
    );
    expect(seen).toEqual(['agent start', 'pattern complete']);
  });

  it('a step callback that throws is reported and the run carries on', async () => {
    const { planner } = scriptedPlanner([step('a', 't.echo'), step('b', 't.echo')]);
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    try {
      const result = await new PlanningPattern({
        callbacks: {
          onStepStart: () => {
            throw new Error('callback bug');
          },
        },
      }).execute({ tools, planner }, 'g');
      expect(result.success).toBe(true);
      expect(errors).toHaveLength(2);
    } finally {
      console.error = original;
    }
  });

  it('onEvent sees every event of the run in seq order', async () => {
    const { planner } = scriptedPlanner([step('a', 't.echo')]);
    const seqs: number[] = [];
    const result = await new PlanningPattern({
      callbacks: { onEvent: (e) => void seqs.push(e.seq) },
    }).execute({ tools, planner }, 'g');
    expect(seqs).toEqual(result.events.map((e) => e.seq));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });
});

describe('a planner of your own', () => {
  it('may return a plan without id, version and created_at: it is taken as a plan, not as one step', async () => {
    const planner = {
      plan: (state: { goal: string }) =>
        Promise.resolve({ goal: state.goal, steps: [step('a', 't.echo', { n: 1 })] } as unknown as Plan),
    };
    const pattern = new PlanningPattern({});
    const result = await pattern.execute({ tools, planner }, 'one step');
    expect(result.success).toBe(true);
    expect(result.plan?.steps.map((s) => s.id)).toEqual(['a']);
    expect(result.plan?.version).toBe(1);
  });
});
