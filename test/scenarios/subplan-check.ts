/**
 * The assertions every runtime's run of a {@link SubplanScenario} must pass: the same recorded call,
 * the same rolled-up result, the same failure, the same time limit and token roll-up.
 */
import { expect } from 'vitest';
import { CHILD_OUTPUT_KEYS, type SubplanScenario } from './subplan-scenarios';

/** The child-run limit when the step sets no `timeout_ms` (engine/child-run.ts). */
const CHILD_RUN_TIMEOUT_MS = 3_600_000;

type ErrorLike = { code: string; message: string; retryable: boolean };

/** What a runtime shows of a finished run: its snapshot (GET /v1/runs/:id) and its events. */
export type Observed = {
  run: {
    status: string;
    step_statuses: Record<string, string>;
    step_results: Record<string, unknown>;
    steps: Record<string, { attempts: number; error: ErrorLike | null }>;
  };
  events: readonly {
    event_type: string;
    timestamp: string;
    references: { step_id?: string; tool_version?: string };
    payload: unknown;
  }[];
};

type Invoked = { tool: string; parameters: Record<string, unknown>; deadline_at?: number };
type Returned = { success: boolean; tokens?: { prompt: number; completion: number } };

function eventsOf<P>(o: Observed, type: string, stepId: string) {
  return o.events
    .filter((e) => e.event_type === type && e.references.step_id === stepId)
    .map((e) => ({ ...e, payload: e.payload as P }));
}

/**
 * Checks one scenario's run.
 * @example checkScenario(scenario, { run: await runner.done(), events: runner.events });
 */
export function checkScenario(s: SubplanScenario, o: Observed): void {
  const x = s.expected;
  expect(o.run.status).toBe(x.status);

  for (const [id, want] of Object.entries(x.invoked)) {
    const [first] = eventsOf<Invoked>(o, 'ToolInvoked', id);
    expect(first).toBeDefined();
    const { payload, references, timestamp } = first!;
    expect(payload.tool).toBe('agent.dispatch');
    expect(references.tool_version).toBe('1');
    expect(Object.keys(payload.parameters).sort()).toEqual(want.parameters);
    const plan = payload.parameters.plan as { steps: { id: string }[] };
    expect(plan.steps.map((st) => st.id)).toEqual(want.plan_steps);
    // A sub-plan step carries the parent's input, and its configuration without approval.
    const input = 'input' in payload.parameters ? payload.parameters.input : s.input;
    expect(input).toEqual(s.input);
    expect(payload.parameters.config ?? {}).not.toHaveProperty('require_plan_approval');
    // The child-run limit moves the attempt's deadline unless the step sets its own.
    const slack =
      payload.deadline_at === undefined
        ? null
        : Math.abs(payload.deadline_at - Date.parse(timestamp) - CHILD_RUN_TIMEOUT_MS);
    expect(slack !== null).toBe(want.child_deadline);
    expect(slack === null || slack < 10_000).toBe(true);
  }

  for (const [id, want] of Object.entries(x.rolled_up ?? {})) {
    const out = o.run.step_results[id] as Record<string, unknown>;
    expect(Object.keys(out).sort()).toEqual(CHILD_OUTPUT_KEYS);
    expect(out).toMatchObject({
      status: 'completed',
      success: true,
      replan_count: 0,
      planning_trace: [],
      subtask_results: want.subtask_results,
      final_output: want.final_output,
      plan_status: want.plan_status,
    });
    expect(out.run_id).toMatch(/^run_[0-9a-f]{32}$/);
    // The child's tokens are the step's, and so count in the parent's usage.
    const usage = out.token_usage as { prompt_tokens: number; completion_tokens: number };
    const returned = eventsOf<Returned>(o, 'ToolReturned', id).at(-1);
    expect(returned?.payload.tokens).toEqual({
      prompt: usage.prompt_tokens,
      completion: usage.completion_tokens,
    });
  }

  for (const [id, want] of Object.entries(x.results ?? {})) expect(o.run.step_results[id]).toEqual(want);

  for (const [id, want] of Object.entries(x.failed ?? {})) {
    expect(o.run.step_statuses[id]).toBe('failed');
    expect(o.run.step_results).not.toHaveProperty(id);
    expect(o.run.steps[id]?.attempts).toBe(1);
    expect(o.run.steps[id]?.error?.code).toBe(want.code);
    expect(o.run.steps[id]?.error?.message).toMatch(want.message);
  }

  for (const id of x.not_run ?? []) {
    expect(o.run.step_results).not.toHaveProperty(id);
    expect(eventsOf(o, 'ToolInvoked', id)).toEqual([]);
  }
}
