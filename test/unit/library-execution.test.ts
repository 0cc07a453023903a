import { describe, expect, it } from 'vitest';
import { RevisionDecision } from '../../src/library/callbacks';
import { PlanningPattern } from '../../src/library/planning-pattern';
import { ToolError } from '../../src/errors';
import { defineTool } from '../../src/executor/registry';
import { z } from 'zod';
import { echo, fail, flakyTool, gateTool, scriptedPlanner, step } from './library-helpers';

describe('PlanningPattern execution modes', () => {
  it('parallel mode never runs more than maxParallel steps at once', async () => {
    const gate = gateTool();
    const steps = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => step(id, 't.gate', { id }));
    const { planner } = scriptedPlanner(steps);
    const pattern = new PlanningPattern({ executionMode: 'parallel', maxParallel: 2 });

    const running = pattern.execute({ tools: [gate.tool], planner }, 'six at once?');
    for (let n = 2; n <= 6; n += 2) {
      await gate.until(n);
      expect(gate.running).toBe(2);
      expect(pattern.getExecutionState()?.runningSteps).toHaveLength(2);
      gate.releaseAll();
    }
    const result = await running;

    expect(result.success).toBe(true);
    expect(gate.stats.max).toBe(2);
    expect(gate.entered).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  it('sequential mode runs one step at a time, in plan order among independent steps', async () => {
    const gate = gateTool();
    const { planner } = scriptedPlanner(['x', 'y', 'z'].map((id) => step(id, 't.gate', { id })));
    const running = new PlanningPattern().execute({ tools: [gate.tool], planner }, 'one by one');
    for (let n = 1; n <= 3; n++) {
      await gate.until(n);
      expect(gate.running).toBe(1);
      gate.releaseAll();
    }
    await running;
    expect(gate.entered).toEqual(['x', 'y', 'z']);
  });
});

describe('PlanningPattern failures', () => {
  const plan = [
    step('a', 't.echo', { v: 1 }),
    step('b', 't.fail'),
    step('c', 't.echo', { from: '{{ steps.b.output }}' }),
    step('d', 't.echo', { v: 4 }),
  ];

  it('continueOnFailure runs every step that does not depend on the failed one', async () => {
    const { planner } = scriptedPlanner(plan);
    const result = await new PlanningPattern({ continueOnFailure: true }).execute(
      { tools: [echo, fail], planner },
      'g',
    );

    expect(result.executionState.stepStatuses).toEqual({
      a: 'completed',
      b: 'failed',
      c: 'skipped',
      d: 'completed',
    });
    expect(result.stepResults.c?.skipReason).toBe('dependency_failed');
    expect(result).toMatchObject({ success: false, status: 'failed', error: { code: 'steps_failed' } });
  });

  it('without continueOnFailure (and without revision) the first failure stops the run, keeping what completed', async () => {
    const { planner } = scriptedPlanner(plan);
    const result = await new PlanningPattern({ allowRevision: false }).execute(
      { tools: [echo, fail], planner },
      'g',
    );

    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'step_failed', message: 'Step "b" failed: boom' });
    expect(result.executionState.stepResults).toEqual({ a: { v: 1 } });
    expect(result.stepResults.d?.status).not.toBe('completed');
  });

  it('retries a retryable failure after the configured delay before giving up on the step', async () => {
    const flaky = flakyTool();
    const { planner } = scriptedPlanner([step('f', 't.flaky', { key: 'k', times: 2 })]);
    const result = await new PlanningPattern({ retryFailedSteps: 2, retryDelay: 0.001 }).execute(
      { tools: [flaky.tool], planner },
      'g',
    );
    expect(result.success).toBe(true);
    expect(result.stepResults.f).toMatchObject({ attempts: 3, output: { key: 'k', call: 3 } });
    expect(result.events.filter((e) => e.event_type === 'StepRetried')).toHaveLength(2);
  });

  it("waits as long as a tool's ToolError asks (retryAfterMs) before the retry, in process too", async () => {
    let calls = 0;
    const limited = defineTool({
      name: 't.limited',
      description: 'Refuses its first call, asking for 80 ms',
      version: '1',
      input: z.object({}),
      idempotent: true,
      deterministic: false,
      run() {
        calls++;
        if (calls === 1) throw new ToolError('rate_limited', 'slow down', { retryAfterMs: 80 });
        return Promise.resolve({ ok: true });
      },
    });
    const { planner } = scriptedPlanner([step('f', 't.limited', {})]);
    const result = await new PlanningPattern({ retryFailedSteps: 1, retryDelay: 0.001 }).execute(
      { tools: [limited], planner },
      'g',
    );
    expect(result.success).toBe(true);
    const retried = result.events.find((e) => e.event_type === 'StepRetried');
    expect(retried?.payload).toMatchObject({
      delay_ms: 80,
      error: { code: 'rate_limited', retry_after_ms: 80 },
    });
    expect(calls).toBe(2);
  });
});

describe('PlanningPattern revision', () => {
  it('a failed step asks the planner for a new version of the rest; completed steps are kept and not re-run', async () => {
    const { planner, calls } = scriptedPlanner(
      [step('a', 't.echo', { v: 1 }), step('b', 't.fail', {}, ['a'])],
      [step('a', 't.echo', { v: 1 }), step('c', 't.echo', { instead: '{{ steps.a.output.v }}' }, ['a'])],
    );
    const reasons: string[] = [];
    const pattern = new PlanningPattern({
      callbacks: {
        onRevisionNeeded: (state, reason) => {
          reasons.push(`${state.stepStatuses.b}: ${reason}`);
          return RevisionDecision.replan;
        },
      },
    });

    const result = await pattern.execute({ tools: [echo, fail], planner }, 'g');

    expect(result.success).toBe(true);
    expect(result.revisionCount).toBe(1);
    expect(result.plan.steps.map((s) => s.id)).toEqual(['a', 'b']);
    expect(result.finalPlan).toMatchObject({ id: result.plan.id, version: 2 });
    expect(result.finalPlan.steps.map((s) => s.id)).toEqual(['a', 'c']);
    expect(result.stepResults.c?.output).toEqual({ instead: 1 });
    expect(reasons).toEqual(['failed: step "b" failed: boom']);
    // The planner saw the failure and the completed work.
    expect(calls[1]).toMatchObject({
      failure: { step_id: 'b', code: 'boom' },
      step_statuses: { a: 'completed', b: 'failed' },
      step_results: { a: { v: 1 } },
    });
    const a = result.events.filter((e) => e.event_type === 'ToolInvoked' && e.payload.step_id === 'a');
    expect(a).toHaveLength(1);
    expect(result.executionState.revisionHistory).toEqual([
      expect.objectContaining({ version: 2, previousVersion: 1, kind: 'revision', trigger: 'step_failure' }),
    ]);
  });

  it('onRevisionNeeded "retry" runs the failed step again in a new version', async () => {
    const flaky = flakyTool();
    const { planner, calls } = scriptedPlanner([
      step('f', 't.flaky', { key: 'r', times: 1, retryable: false }),
    ]);
    const result = await new PlanningPattern({ callbacks: { onRevisionNeeded: () => 'retry' } }).execute(
      { tools: [flaky.tool], planner },
      'g',
    );
    expect(result).toMatchObject({ success: true, revisionCount: 1, finalPlan: { version: 2 } });
    expect(result.stepResults.f?.attempts).toBe(2);
    expect(calls).toHaveLength(1); // the planner was not asked again
  });

  it('onRevisionNeeded "skip" skips the failed step and carries on with the rest', async () => {
    const { planner } = scriptedPlanner([step('bad', 't.fail'), step('after', 't.echo', { v: 2 }, ['bad'])]);
    const result = await new PlanningPattern({ callbacks: { onRevisionNeeded: () => 'skip' } }).execute(
      { tools: [echo, fail], planner },
      'g',
    );
    expect(result.success).toBe(true);
    expect(result.executionState.stepStatuses).toEqual({ bad: 'skipped', after: 'completed' });
  });

  it('onRevisionNeeded "abort" stops the run (aborted, partial results kept) without asking the planner', async () => {
    const { planner, calls } = scriptedPlanner([
      step('first', 't.echo', { v: 1 }),
      step('bad', 't.fail', {}, ['first']),
    ]);
    const result = await new PlanningPattern({ callbacks: { onRevisionNeeded: () => 'abort' } }).execute(
      { tools: [echo, fail], planner },
      'g',
    );
    expect(result).toMatchObject({ success: false, status: 'aborted', error: { code: 'revision_declined' } });
    expect(result.stepResults.first).toMatchObject({ success: true });
    expect(calls).toHaveLength(1);
  });

  it('with revisionStrategy "ask_user" the run waits for onRevisionNeeded, whose answer the engine applies', async () => {
    const { planner } = scriptedPlanner([step('bad', 't.fail'), step('other', 't.echo', { v: 1 })]);
    const asked: string[] = [];
    const result = await new PlanningPattern({
      revisionStrategy: 'ask_user',
      callbacks: {
        onRevisionNeeded: (state, reason) => {
          asked.push(`${state.status}: ${reason}`);
          return 'skip';
        },
      },
    }).execute({ tools: [echo, fail], planner }, 'g');
    expect(asked).toEqual(['awaiting_input: Step "bad" failed: boom; how should the run continue?']);
    expect(result.success).toBe(true);
    expect(result.executionState.stepStatuses).toEqual({ bad: 'skipped', other: 'completed' });
    expect(result.revisionCount).toBe(0);
  });

  it('stops with "Max replans exceeded" once maxRevisions revisions did not help', async () => {
    const { planner, calls } = scriptedPlanner([step('bad', 't.fail')]);
    const result = await new PlanningPattern({ maxRevisions: 2 }).execute({ tools: [fail], planner }, 'g');
    expect(result.revisionCount).toBe(2);
    expect(result.error?.message).toMatch(/^Max replans exceeded \(2\)/);
    expect(calls).toHaveLength(3);
  });

  it('revisePlan returns the next version for an execution state without touching the run', async () => {
    const { planner } = scriptedPlanner(
      [step('a', 't.echo'), step('b', 't.fail', {}, ['a'])],
      [step('a', 't.echo'), step('b2', 't.echo', {}, ['a'])],
    );
    const agent = { tools: [echo, fail], planner };
    const pattern = new PlanningPattern({ allowRevision: false });
    const result = await pattern.execute(agent, 'g');

    const next = await pattern.revisePlan(agent, result.executionState, 'b cannot work');

    expect(next).toMatchObject({ id: result.plan.id, version: 2 });
    expect(next.steps.map((s) => s.id)).toEqual(['a', 'b2']);
    expect(pattern.getExecutionState()?.status).toBe('failed');
  });
});

describe('PlanningPattern state', () => {
  it('getExecutionState shows the live run while it executes and the final state after', async () => {
    const gate = gateTool();
    const { planner } = scriptedPlanner([
      step('a', 't.gate', { id: 'a' }),
      step('b', 't.echo', { v: 2 }, ['a']),
    ]);
    const pattern = new PlanningPattern();
    expect(pattern.getExecutionState()).toBeNull();
    expect(pattern.getPlan()).toBeNull();

    const running = pattern.execute({ tools: [gate.tool, echo], planner }, 'g');
    await gate.until(1);
    const during = pattern.getExecutionState()!;
    expect(during).toMatchObject({
      status: 'running',
      currentStep: 'a',
      runningSteps: ['a'],
      stepStatuses: { a: 'running', b: 'blocked' },
      stepResults: {},
      completedAt: null,
    });
    expect(during.startedAt).toEqual(expect.any(String));
    expect(pattern.getPlan()?.steps.map((s) => s.id)).toEqual(['a', 'b']);

    gate.releaseAll();
    const result = await running;
    const after = pattern.getExecutionState()!;
    expect(after).toEqual(result.executionState);
    expect(after).toMatchObject({
      status: 'completed',
      currentStep: null,
      stepResults: { a: { id: 'a' }, b: { v: 2 } },
      completedAt: expect.any(String),
    });
  });

  it('the result has seed 000’s PlanExecutionResult fields, with camelCase names', async () => {
    const { planner } = scriptedPlanner([step('a', 't.echo', { v: 'out' })]);
    const result = await new PlanningPattern().execute({ tools: [echo], planner }, 'g', {
      runId: 'run_shape',
    });

    expect(Object.keys(result).sort()).toEqual(
      [
        'success',
        'status',
        'plan',
        'finalPlan',
        'stepResults',
        'finalOutput',
        'output',
        'revisionCount',
        'executionState',
        'tokenUsage',
        'executionTime',
        'runId',
        'error',
        'events',
      ].sort(),
    );
    expect(result).toMatchObject({
      success: true,
      runId: 'run_shape',
      finalOutput: '{"v":"out"}',
      output: { v: 'out' },
      revisionCount: 0,
      error: null,
      tokenUsage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    });
    expect(result.executionTime).toBeGreaterThanOrEqual(0);
    expect(Object.keys(result.executionState).sort()).toEqual(
      [
        'runId',
        'status',
        'plan',
        'stepStatuses',
        'stepResults',
        'currentStep',
        'runningSteps',
        'revisionCount',
        'revisionHistory',
        'variables',
        'startedAt',
        'completedAt',
      ].sort(),
    );
    expect(Object.keys(result.stepResults.a!).sort()).toEqual(
      [
        'stepId',
        'status',
        'success',
        'output',
        'error',
        'attempts',
        'latencyMs',
        'startedAt',
        'finishedAt',
        'skipReason',
      ].sort(),
    );
  });

  it('generatePlan then executePlan: the generated plan is the one that runs, and getPlan returns it', async () => {
    const { planner } = scriptedPlanner([step('a', 't.echo', { v: '{{ input.name }}' })]);
    const agent = { tools: [echo], planner };
    const pattern = new PlanningPattern();

    const plan = await pattern.generatePlan(agent, 'greet');
    expect(pattern.getPlan()).toBe(plan);
    const result = await pattern.executePlan(agent, plan, { input: { name: 'Ada' } });

    expect(result.plan).toEqual(plan);
    expect(result.output).toEqual({ v: 'Ada' });
  });

  it('executePlan takes a hand-written plan without id, version or timestamps', async () => {
    const result = await new PlanningPattern().executePlan(
      { tools: [echo] },
      { goal: 'by hand', steps: [{ id: 'a', action: 't.echo', parameters: { v: 1 } }] },
    );
    expect(result).toMatchObject({
      success: true,
      plan: { goal: 'by hand', version: 1, strategy: 'manual' },
    });
  });

  it('executePlan refuses an invalid plan up front with every finding', async () => {
    const pattern = new PlanningPattern();
    const bad = {
      id: 'p',
      version: 1,
      goal: 'g',
      strategy: 'manual' as const,
      created_at: '2026-01-01T00:00:00Z',
      steps: [step('a', 'nope'), step('b', 't.echo', {}, ['ghost'])],
    };
    await expect(pattern.executePlan({ tools: [echo] }, bad)).rejects.toMatchObject({
      code: 'invalid_plan',
      details: {
        errors: [
          expect.objectContaining({ code: 'unknown_tool' }),
          expect.objectContaining({ code: 'unknown_dependency' }),
        ],
      },
    });
    expect(pattern.getExecutionState()).toBeNull();
  });

  it('an aborted signal cancels the run: attempts in flight are aborted and the result says cancelled', async () => {
    const gate = gateTool();
    const { planner } = scriptedPlanner([
      step('a', 't.gate', { id: 'a' }),
      step('b', 't.gate', { id: 'b' }, ['a']),
    ]);
    const controller = new AbortController();
    const running = new PlanningPattern().execute({ tools: [gate.tool], planner }, 'g', {
      signal: controller.signal,
    });
    await gate.until(1);
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ success: false, status: 'cancelled' });
    expect(gate.entered).toEqual(['a']);
  });
});
