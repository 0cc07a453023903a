/**
 * The planning pipeline (SPEC §3) as a {@link PlanProvider}: first plans, revisions and streamed plans
 * from `planFromState` / the streaming planner with the given dependencies. The Durable Object builds
 * its dependencies from bindings (KV templates, D1 provenance), the library from options; both run
 * their side work through this one provider.
 */
import { toolAllowed } from '../engine/side-work';
import type { DraftRequest, PlanAttempt, PlanProvider, ReviseRequest } from '../engine/plan-provider';
import { readLlmConfig } from '../executor/tools/openai-client';
import type { ToolDescription } from '../executor/registry';
import type { PlannerState } from './contracts';
import { planFromState, type PlanOptions } from './pipeline';
import { LlmStreamingPlanner } from './streaming-planner';
import { TallyingProvenance } from './tallying-provenance';
import type { PlannerDeps, PlanningOutcome } from './types';

/**
 * @example
 * const provider = planningProvider(plannerDepsFor(env, { tools, clock, ids }));
 * const first = await provider.draft({ goal: 'echo hi', limits: { max_steps: 20, max_depth: 2 } });
 */
export function planningProvider(deps: PlannerDeps, options: PlanOptions = {}): PlanProvider {
  // A model call is bounded by the provider's own timeout, else by the run's (planning_timeout_s).
  const callDeps = (r: DraftRequest): PlannerDeps => ({
    ...deps,
    ...(r.signal ? { signal: r.signal } : {}),
    ...(deps.timeoutMs === undefined && r.timeout_ms !== undefined ? { timeoutMs: r.timeout_ms } : {}),
    ...(r.on_spent ? { provenance: new TallyingProvenance(deps.provenance, r.on_spent) } : {}),
  });
  return {
    // Without a model the pipeline has only its rules, which plan goals from scratch.
    canRevise: readLlmConfig(deps.env) !== null,
    draft: async (r) =>
      planAttemptOf(
        await planFromState(draftState(r, toolsFor(deps, r)), optionsFor(options, r), callDeps(r)),
      ),
    revise: async (r) =>
      planAttemptOf(
        await planFromState(revisionState(r, toolsFor(deps, r)), optionsFor(options, r), callDeps(r)),
      ),
    stream: (r) =>
      new LlmStreamingPlanner(callDeps(r), {
        ...optionsFor(options, r),
        ...(r.plan_id !== undefined ? { plan_id: r.plan_id } : {}),
      }).plan(draftState(r, toolsFor(deps, r))),
  };
}

/** The provider's options with the run's own planning options over them. */
function optionsFor(base: PlanOptions, r: DraftRequest): PlanOptions {
  const p = r.planning;
  if (!p) return base;
  const text = p.prompt_template ?? base.template?.text;
  const id = p.prompt_template_id ?? base.template?.id;
  return {
    ...base,
    ...(p.model !== undefined ? { model: p.model } : {}),
    ...(p.temperature !== undefined ? { temperature: p.temperature } : {}),
    ...(p.n_best !== undefined ? { n_best: p.n_best } : {}),
    ...(p.structured_output !== undefined ? { structured_output: p.structured_output } : {}),
    ...(text !== undefined || id !== undefined ? { template: { text, id } } : {}),
  };
}

/** The tools a request may use, with their schemas. */
function toolsFor(deps: PlannerDeps, r: DraftRequest): ToolDescription[] {
  return deps.tools.describe().filter((t) => toolAllowed(t.name, r.tools));
}

function draftState(r: DraftRequest, tools: ToolDescription[]): PlannerState {
  const state: PlannerState = {
    goal: r.goal,
    input: r.input,
    tools,
    limits: r.limits,
    strategy: r.strategy ?? 'flat',
  };
  if (r.planning?.success_criteria !== undefined) state.success_criteria = r.planning.success_criteria;
  return state;
}

/** The planner state of a revision: the plan, what its steps did, the run state, and why. */
export function revisionState(r: ReviseRequest, tools: ToolDescription[]): PlannerState {
  const state: PlannerState = {
    goal: r.goal,
    input: r.input,
    tools,
    limits: r.limits,
    strategy: r.plan.strategy,
    plan: r.plan,
    step_statuses: r.step_statuses,
    step_results: r.step_results,
    state: r.state,
    reason: r.reason,
  };
  const criteria = r.planning?.success_criteria ?? r.plan.success_criteria;
  if (criteria !== undefined) state.success_criteria = criteria;
  if (r.failure) state.failure = r.failure;
  if (r.revision_strategy === 'insert_recovery' && r.failure) {
    const id = r.failure.step_id;
    state.recovery_for = id;
    state.reason =
      `${r.reason}. Write recovery steps only: new steps (new ids) that achieve what step "${id}" was ` +
      `meant to; they replace it, and its dependents will read the last one's output in its place. ` +
      `The rest of the plan stays as it is.`;
  }
  return state;
}

/**
 * The pipeline's outcome as a {@link PlanProvider} answers: the plan with its estimates and tokens,
 * or the error.
 * @example const attempt = planAttemptOf(await planFromState(revisionState(request, tools), {}, deps));
 */
export function planAttemptOf(out: PlanningOutcome): PlanAttempt {
  if (!out.ok) {
    const { code, message, retryable, details } = out.error;
    // What the failed attempts spent still counts toward the run's usage and budget.
    const tokens = { prompt: out.tokens.prompt, completion: out.tokens.completion };
    return { ok: false, error: { code, message, retryable }, details, tokens };
  }
  return {
    ok: true,
    plan: out.plan,
    estimates: out.validation.estimates,
    tokens: { prompt: out.tokens.prompt, completion: out.tokens.completion },
  };
}
