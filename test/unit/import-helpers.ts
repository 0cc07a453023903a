import { z } from 'zod';
import { ToolRegistry, defineTool } from '../../src/executor/registry';
import type { AnyTool } from '../../src/executor/registry';
import { buildGraph } from '../../src/plan/graph';
import type { Plan } from '../../src/plan/model';
import { validatePlan } from '../../src/plan/validate';

/** A registry of permissive tools with these names (the seeds' example tools). */
export function toolsNamed(...names: string[]): ToolRegistry {
  return new ToolRegistry(
    names.map((name): AnyTool =>
      defineTool({
        name,
        description: name,
        version: '1',
        input: z.record(z.string(), z.unknown()),
        idempotent: true,
        deterministic: true,
        run: () => Promise.resolve(null),
      }),
    ),
  );
}

let n = 0;
/** Validates a converted plan as `POST /v1/runs` does. */
export function validate(plan: unknown, tools: ToolRegistry) {
  return validatePlan(plan, {
    tools,
    clock: { now: () => new Date('2026-01-01T00:00:00Z') },
    ids: { id: (prefix) => `${prefix}_${++n}`, uuid: () => `uuid-${++n}` },
  });
}

/** Step id → the dependencies the graph gives it (explicit and implied by references). */
export function dependencies(plan: Plan): Record<string, string[]> {
  const g = buildGraph(plan.steps);
  return Object.fromEntries(g.ids.map((id, i) => [id, g.deps[i] ?? []]));
}

/** Seed 001's "Complete Workflow Example", verbatim. */
export const RESEARCH_PLANNER = `name: research-planner
state_schema:
  user_goal: str
  plan: dict
  subtask_results: dict
  final_result: str

nodes:
  - name: plan_research
    action: plan.decompose
    with:
      goal: "{{ state.user_goal }}"
      strategy: hierarchical
      max_depth: 2
      model: gpt-4

  - name: execute_research
    action: plan.execute
    with:
      plan: "{{ state.plan }}"
      parallel: true
      max_concurrent: 3
      on_subtask_failure: replan
      max_replans: 2
      subtask_executor:
        action: llm.call
        with:
          model: gpt-4

  - name: check_completion
    action: plan.status
    with:
      include_details: false

  - name: synthesize
    action: llm.call
    with:
      model: gpt-4
      messages:
        - role: system
          content: Synthesize the research results into a comprehensive summary.
        - role: user
          content: |
            Goal: {{ state.user_goal }}
            Results: {{ state.subtask_results | tojson }}

navigation:
  plan_research: execute_research
  execute_research: check_completion
  check_completion: synthesize
  synthesize: __end__
`;
