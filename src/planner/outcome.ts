/**
 * Building planning outcomes: a plan stamped with how it was made (and, for a re-plan, the
 * bookkeeping seed 001's `plan.replan` reports), or a failure carrying the whole trace.
 */
import type { Plan } from '../plan/model';
import { replanMetadata } from './candidate';
import type { PlannerState } from './contracts';
import type {
  PlanningErrorCode,
  PlanningFailure,
  PlanningSuccess,
  PlanningTokens,
  TraceEntry,
} from './types';

/** How a plan was made, for its metadata and the outcome. */
export type Provenance = {
  planningId: string;
  planner: 'llm' | 'rules';
  model: string | null;
  template: PlanningSuccess['template'];
};

/** Sets `plan.metadata`: the re-plan bookkeeping, then the planner, planning id, model and template. */
export function stampPlan(plan: Plan, state: PlannerState, how: Provenance): Plan {
  const base = state.plan ? replanMetadata(state.plan, plan, state) : {};
  plan.metadata = {
    ...base,
    ...plan.metadata,
    planner: how.planner,
    planning_id: how.planningId,
    ...(how.model ? { model: how.model } : {}),
    ...(how.template ? { prompt_template: how.template } : {}),
  };
  return plan;
}

/** A successful outcome; the plan's metadata is stamped. */
export function success(
  plan: Plan,
  estimates: PlanningSuccess['validation']['estimates'],
  state: PlannerState,
  trace: TraceEntry[],
  how: Provenance,
): PlanningSuccess {
  return {
    ok: true,
    plan: stampPlan(plan, state, how),
    validation: { valid: true, errors: [], estimates },
    planning_trace: trace,
    planning_id: how.planningId,
    planner: how.planner,
    model: how.model,
    template: how.template,
    tokens: sumTokens(trace),
  };
}

/**
 * A failed outcome; `planning_failed` is retryable (sampling again may succeed) unless every model
 * refused the call for its configuration ({@link refusedForConfiguration}), the others not.
 */
export function failure(
  planningId: string,
  code: PlanningErrorCode,
  message: string,
  trace: TraceEntry[],
  variables?: string[],
): PlanningFailure {
  const details: PlanningFailure['error']['details'] = { planning_trace: trace };
  if (variables) details.variables = variables;
  const retryable = code === 'planning_failed' && !refusedForConfiguration(trace);
  return {
    ok: false,
    error: { code, message, retryable, details },
    planning_trace: trace,
    planning_id: planningId,
    tokens: sumTokens(trace),
  };
}

/** Tokens over every attempt in a trace. */
export function sumTokens(trace: readonly TraceEntry[]): PlanningTokens {
  let prompt = 0;
  let completion = 0;
  for (const t of trace) {
    prompt += t.tokens?.prompt ?? 0;
    completion += t.tokens?.completion ?? 0;
  }
  return { prompt, completion, total: prompt + completion };
}

/** Call errors that asking again cannot mend: the key, the request (a model the server lacks), the URL. */
const CONFIGURATION_ERRORS: ReadonlySet<string> = new Set([
  'llm_auth_failed',
  'llm_bad_request',
  'llm_invalid_response',
]);

/** Whether every LLM attempt was refused for the deployment's configuration (and there was one). */
export function refusedForConfiguration(trace: readonly TraceEntry[]): boolean {
  const llm = trace.filter((t) => t.planner === 'llm');
  return (
    llm.length > 0 &&
    llm.every((t) => t.outcome === 'call_error' && CONFIGURATION_ERRORS.has(t.error_code ?? ''))
  );
}
