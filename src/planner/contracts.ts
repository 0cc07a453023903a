/**
 * The planner contracts (SPEC §3, seed 003): what every planner is given ({@link PlannerState}) and
 * the shapes planners come in — promise-based, streaming, HTN and rule-based — plus
 * {@link toStepStream}, which turns any planner's result into one stream for the run.
 */
import type { ToolDescription } from '../executor/registry';
import type { Plan, PlanStep, StepStatus, Strategy } from '../plan/model';

/** The limits a plan must respect; validation enforces the same numbers. */
export type PlannerLimits = {
  max_steps: number;
  max_depth: number;
  /** Estimated tokens the plan may spend; `null`/absent for no budget. */
  token_budget?: number | null;
  /** The run's `require_fallbacks`: every step must name a `fallback_action` (`missing_fallback`). */
  require_fallbacks?: boolean;
};

/** Why a re-plan was asked for: the step that failed and how, or a user's reason. */
export type PlannerFailure = {
  step_id?: string;
  /** A stable error code when there is one (`timeout`, `demo_flaky`, …). */
  code?: string;
  reason: string;
};

/**
 * Everything a planner may look at. A fresh plan needs `goal`, `tools` and `limits`; a re-plan also
 * carries the current `plan`, what its steps did (`step_statuses`, `step_results`, the run `state`)
 * and the `failure` (or user `reason`) that triggered it.
 */
export type PlannerState = {
  goal: string;
  /** The run's input (`{{ input.<path> }}`). */
  input?: unknown;
  /** The tools a plan may use, with JSON schemas (`ToolRegistry.describe()`). */
  tools: ToolDescription[];
  limits: PlannerLimits;
  /** Defaults to `flat`. */
  strategy?: Strategy;
  success_criteria?: string;
  /** Re-planning: the plan being revised. */
  plan?: Plan;
  step_statuses?: Record<string, StepStatus>;
  /** Re-planning: outputs of completed steps, by step id. */
  step_results?: Record<string, unknown>;
  /** Re-planning: the run state written by `output_path`s. */
  state?: Record<string, unknown>;
  failure?: PlannerFailure;
  /** Re-planning: why (a user's `POST /replan` reason, "unexpected result", …). */
  reason?: string;
  /**
   * `insert_recovery`: the failed step the planner's new steps stand in for; they are inserted in its
   * place and its dependents rewired to them (plan/insert-recovery.ts).
   */
  recovery_for?: string;
  /** Steps run so far (iterative planners). */
  step_count?: number;
};

/** What a planner returns: a whole plan, or — iterative planners — the next step to run. */
export type PlannerResult = Plan | PlanStep;

/**
 * A promise-based planner (seed 003's default).
 * @example const plan = await planner.plan({ goal, tools: registry.describe(), limits });
 */
export interface Planner {
  plan(state: PlannerState): Promise<PlannerResult>;
}

/** One item of a planning stream: a step, a piece of the planner's reasoning, or the end. */
export type PlanYield =
  PlanStep | { partialReasoning: string } | { finish: { result?: unknown; plan?: Plan } };

/** A planner that yields steps as they arrive (NDJSON from a model, seed 003). */
export interface StreamingPlanner {
  plan(state: PlannerState): AsyncIterable<PlanYield>;
}

/** A node of a hierarchical task network: a primitive step, or a compound task to decompose. */
export type HTNNode = {
  id: string;
  kind: 'primitive' | 'compound';
  /** Primitive nodes: the step to run. */
  primitive?: PlanStep;
  /** Compound nodes: the task name methods are looked up by (defaults to `id`). */
  task?: string;
  /** Compound nodes: names of the methods that may decompose it, in preference order. */
  methods?: string[];
  /** Arguments of a compound task, passed to its methods. */
  args?: Record<string, unknown>;
  /** Compound nodes: the subtasks are independent (may run in parallel) instead of in order. */
  parallel?: boolean;
};

/** A hierarchical task network planner (seed 003); `planWithHtn` (htn.ts) expands one into a Plan. */
export interface HTNPlanner {
  initialTask(state: PlannerState): Promise<HTNNode>;
  decompose(node: HTNNode, state: PlannerState): Promise<HTNNode[]>;
}

/**
 * A deterministic rule: when `match` holds, `toPlanStep` gives the step(s). Returning `null` means
 * "matched, but cannot plan this state" and the next rule is tried.
 */
export type Rule = {
  id: string;
  description?: string;
  match: (state: PlannerState) => boolean;
  toPlanStep: (state: PlannerState) => PlanStep | PlanStep[] | null;
};

/** A rule-based planner (seed 003): the last fallback, and usable alone without an LLM. */
export interface RulePlanner extends Planner {
  getRules?(): Rule[];
}

/**
 * True for a whole plan, false for a single step: a plan has `steps`, which no step has. Its `id`,
 * `version`, `created_at` and `strategy` may be left out, as on any plan given as input (SPEC §2) —
 * the run fills them in; a `{goal, steps}` a planner returns is a plan, not a step without an id.
 */
export function isPlan(result: PlannerResult): result is Plan {
  return Array.isArray((result as Partial<Plan>).steps);
}

/** True for a step yield (not reasoning, not the end). */
export function isStepYield(item: PlanYield): item is PlanStep {
  return !('partialReasoning' in item) && !('finish' in item);
}

/**
 * Normalises any planner's result into one stream: a stream passes through; a promised plan yields
 * its steps and then `{finish: {plan}}`; a promised single step (iterative planners) yields just that
 * step — the run asks again after running it.
 * @example
 * for await (const item of toStepStream(planner.plan(state))) if (isStepYield(item)) dispatch(item);
 */
export async function* toStepStream(
  result: PromiseLike<PlannerResult> | PlannerResult | AsyncIterable<PlanYield>,
): AsyncIterable<PlanYield> {
  if (isAsyncIterable(result)) {
    yield* result;
    return;
  }
  const value = await result;
  if (isPlan(value)) {
    yield* value.steps;
    yield { finish: { plan: value } };
  } else {
    yield value;
  }
}

function isAsyncIterable(v: unknown): v is AsyncIterable<PlanYield> {
  return typeof v === 'object' && v !== null && Symbol.asyncIterator in v;
}
