/**
 * From a parsed answer to a validated plan: the server, not the model, decides the plan's id,
 * version, goal and strategy; on a re-plan completed steps are kept exactly as they ran; then
 * `validatePlan` with `require_dependencies` (SPEC §2: an LLM plan must list its dependencies) and,
 * when the state carries the run's input, its whole `{{ input.… }}` references held to that input.
 */
import { declaredFinalOutput, FINAL_OUTPUT_KEY } from '../plan/final-output';
import { insertRecovery } from '../plan/insert-recovery';
import type { ToolRegistry } from '../executor/registry';
import { isRecord } from '../plan/model';
import type { Clock, IdSource, Plan, PlanStep } from '../plan/model';
import { validatePlan } from '../plan/validate';
import type { ValidationResult } from '../plan/validate';
import type { PlannerState } from './contracts';
import type { PlanCandidate } from './parse';

export type CandidateContext = {
  state: PlannerState;
  registry: ToolRegistry;
  clock: Clock;
  ids: IdSource;
  latencyHistory?: Record<string, number> | undefined;
  /** The id a fresh plan gets (default: a new one per validation). */
  planId?: string;
};

/**
 * Validates a candidate against the state's limits and tools.
 * @example validateCandidate({ steps: [...] }, { state, registry, clock, ids }).valid
 */
export function validateCandidate(candidate: PlanCandidate, ctx: CandidateContext): ValidationResult {
  const { state } = ctx;
  const input: Record<string, unknown> = {
    goal: state.goal,
    strategy: state.strategy ?? 'flat',
    steps: state.plan ? keepCompleted(revisedSteps(candidate.steps, state), state) : candidate.steps,
  };
  // The one piece of a candidate's metadata that is the model's: an answer to end with (seed 004).
  const answer = declaredFinalOutput(candidate as Pick<Plan, 'metadata'>);
  if (answer.found) input.metadata = { [FINAL_OUTPUT_KEY]: answer.value };
  const criteria = candidate.success_criteria ?? state.success_criteria;
  if (typeof criteria === 'string' && criteria !== '') input.success_criteria = criteria;
  if (state.plan) {
    input.id = state.plan.id;
    input.version = state.plan.version + 1;
  } else if (ctx.planId !== undefined) {
    input.id = ctx.planId;
  }
  const result = validatePlan(input, {
    tools: ctx.registry,
    clock: ctx.clock,
    ids: ctx.ids,
    latencyHistory: ctx.latencyHistory,
    config: {
      max_steps: state.limits.max_steps,
      max_depth: state.limits.max_depth,
      require_dependencies: true,
      // The run's require_fallbacks holds a model's plan as it holds a caller's (SPEC §2).
      require_fallbacks: state.limits.require_fallbacks === true,
      ...(state.limits.token_budget != null ? { token_budget: state.limits.token_budget } : {}),
    },
    // A model's plan is held to the run's input like a caller's: its finding goes into the repair
    // prompt, so the model fixes the reference rather than a person approving a step that must fail.
    ...(state.input !== undefined ? { runInput: { value: state.input } } : {}),
  });
  // Valid for a submitted plan, useless as an answer to a goal: ask the model for steps.
  if (result.plan && result.plan.steps.length === 0) {
    result.errors.push({
      code: 'schema',
      message: 'steps: the plan has no steps; give at least one',
      path: ['steps'],
    });
    result.valid = false;
  }
  return result;
}

/** The candidate's steps, or — `insert_recovery` — the plan with them in the failed step's place. */
function revisedSteps(steps: readonly unknown[], state: PlannerState): readonly unknown[] {
  return state.recovery_for !== undefined && state.plan
    ? insertRecovery(state.plan, state.recovery_for, steps)
    : steps;
}

/**
 * Completed steps of the current plan, exactly as they ran, in their original order and in place
 * of any same-id step the model wrote; then the model's other steps.
 */
function keepCompleted(steps: readonly unknown[], state: PlannerState): unknown[] {
  const completed = completedSteps(state);
  if (completed.length === 0) return [...steps];
  const ids = new Set(completed.map((s) => s.id));
  const rest = steps.filter((s) => !(isRecord(s) && typeof s.id === 'string' && ids.has(s.id)));
  return [...completed, ...rest];
}

/** The steps of the state's plan whose status is `completed`. */
export function completedSteps(state: PlannerState): PlanStep[] {
  const statuses = state.step_statuses ?? {};
  return state.plan?.steps.filter((s) => statuses[s.id] === 'completed') ?? [];
}

/** The re-plan bookkeeping seed 001's `plan.replan` reports, kept in the new plan's metadata. */
export function replanMetadata(previous: Plan, next: Plan, state: PlannerState): Record<string, unknown> {
  const kept = completedSteps(state).length;
  const replanCount =
    typeof previous.metadata?.replan_count === 'number' ? previous.metadata.replan_count : 0;
  // A new version answers for itself: the previous one's final output does not carry over.
  const { [FINAL_OUTPUT_KEY]: _answer, ...kept_meta } = previous.metadata ?? {};
  return {
    ...kept_meta,
    replan_count: replanCount + 1,
    parent_version: previous.version,
    preserved_subtasks: kept,
    new_subtasks: next.steps.length - kept,
  };
}
