import { describe, expect, it } from 'vitest';
import type { PlannerState } from '../../src/planner/contracts';
import { LlmPlanner } from '../../src/planner/llm-planner';
import { planFromState } from '../../src/planner/pipeline';
import type { Plan } from '../../src/plan/model';
import { deps, planJson, scriptedLlm } from './planner-helpers';

const current: Plan = {
  id: 'plan_run',
  version: 1,
  goal: 'Echo twice',
  strategy: 'flat',
  created_at: '2026-01-01T00:00:00.000Z',
  metadata: { replan_count: 0, max_replans: 3 },
  steps: [
    { id: 'a', description: 'first', action: 'demo.echo', parameters: { n: 1 }, dependencies: [] },
    {
      id: 'b',
      description: 'flaky',
      action: 'demo.flaky',
      parameters: { fail_times: 5, permanent: true },
      dependencies: ['a'],
    },
  ],
};

function replanState(tools = deps().tools.describe()): PlannerState {
  return {
    goal: current.goal,
    tools,
    limits: { max_steps: 20, max_depth: 3 },
    plan: current,
    step_statuses: { a: 'completed', b: 'failed' },
    step_results: { a: { n: 1 } },
    failure: { step_id: 'b', code: 'demo_flaky', reason: 'demo.flaky: attempt 1 of "k" fails' },
  };
}

describe('re-planning from a planner state', () => {
  it('keeps completed steps exactly as they ran, whatever the model did to them, and makes the next version', async () => {
    const answer = planJson([
      { id: 'a', description: 'changed!', action: 'demo.echo', parameters: { n: 99 }, dependencies: [] },
      {
        id: 'c',
        description: 'instead of b',
        action: 'demo.echo',
        parameters: { from: '{{ steps.a.output }}' },
        dependencies: ['a'],
      },
    ]);
    const llm = scriptedLlm([answer]);
    const out = await planFromState(replanState(), {}, deps({ fetch: llm.fetch }));
    if (!out.ok) throw new Error(out.error.message);

    expect(out.plan.id).toBe('plan_run');
    expect(out.plan.version).toBe(2);
    expect(out.plan.steps[0]).toEqual(current.steps[0]);
    expect(out.plan.steps.map((s) => s.id)).toEqual(['a', 'c']);
    expect(out.plan.metadata).toMatchObject({
      replan_count: 1,
      max_replans: 3,
      parent_version: 1,
      preserved_subtasks: 1,
      new_subtasks: 1,
      planner: 'llm',
    });

    const user = llm.sent[0]!.body.messages[1]!.content;
    expect(user).toContain('revision of plan plan_run version 1');
    expect(user).toContain('result: {"n":1}');
    expect(user).toContain('step "b" failed (demo_flaky)');
  });

  it('puts back a completed step the model left out', async () => {
    const llm = scriptedLlm([planJson([{ id: 'c', action: 'demo.echo', parameters: {}, dependencies: [] }])]);
    const out = await planFromState(replanState(), {}, deps({ fetch: llm.fetch }));
    expect(out.ok && out.plan.steps.map((s) => s.id)).toEqual(['a', 'c']);
  });

  it('does not fall back to the goal rules, which would plan from scratch', async () => {
    const llm = scriptedLlm(['nope', 'nope']);
    const out = await planFromState({ ...replanState(), goal: 'echo twice' }, {}, deps({ fetch: llm.fetch }));
    expect(!out.ok && out.error.code).toBe('planning_failed');
    expect(out.planning_trace.some((t) => t.planner === 'rules')).toBe(false);
  });

  it('validates against the tools the state lists', async () => {
    const onlyEcho = deps()
      .tools.describe()
      .filter((t) => t.name === 'demo.echo');
    const llm = scriptedLlm([
      planJson([{ id: 'c', action: 'demo.flaky', parameters: { fail_times: 0 }, dependencies: [] }]),
      planJson([{ id: 'c', action: 'demo.echo', parameters: {}, dependencies: [] }]),
    ]);
    const out = await planFromState(
      { ...replanState(onlyEcho), step_statuses: {} },
      {},
      deps({ fetch: llm.fetch }),
    );
    expect(out.ok).toBe(true);
    expect(out.planning_trace[0]?.findings?.[0]?.code).toBe('unknown_tool');
  });
});

describe('LlmPlanner', () => {
  it('resolves to the plan', async () => {
    const planner = new LlmPlanner(deps({ fetch: scriptedLlm([planJson()]).fetch }));
    const plan = await planner.plan({
      goal: 'g',
      tools: deps().tools.describe(),
      limits: { max_steps: 5, max_depth: 1 },
    });
    expect(plan.steps).toHaveLength(2);
  });

  it('rejects with the outcome code and the trace in details', async () => {
    const planner = new LlmPlanner(deps({ fetch: scriptedLlm(['x', 'y']).fetch }));
    await expect(
      planner.plan({ goal: 'Compose', tools: [], limits: { max_steps: 5, max_depth: 1 } }),
    ).rejects.toMatchObject({
      code: 'planning_failed',
      retryable: true,
      details: {
        planning_trace: expect.arrayContaining([expect.objectContaining({ outcome: 'parse_error' })]),
      },
    });
  });
});
