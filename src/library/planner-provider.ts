/**
 * Plans from any seed-003 {@link Planner} — a `RuleBasedPlanner`, an `LlmPlanner`, or one a user
 * writes. Its answer is validated like an LLM's (`validateCandidate`: the tools, the limits, declared
 * dependencies; on a revision the completed steps kept as they ran, the same id, the next version).
 */
import { toErrorInfo } from '../errors';
import type { ToolRegistry } from '../executor/registry';
import type { Clock, IdSource, Plan, PlanStep } from '../plan/model';
import { replanMetadata, validateCandidate } from '../planner/candidate';
import { isPlan, type Planner, type PlannerResult, type PlannerState } from '../planner/contracts';
import { toolAllowed } from '../engine/side-work';
import { revisionState } from '../planner/planning-provider';
import type { PlanAttempt, PlanProvider } from '../engine/plan-provider';

export type PlannerProviderOptions = { tools: ToolRegistry; clock: Clock; ids: IdSource };

/**
 * @example
 * const provider = plannerProvider(new RuleBasedPlanner({ rules, clock, ids }), { tools, clock, ids });
 */
export function plannerProvider(planner: Planner, opts: PlannerProviderOptions): PlanProvider {
  const tools = (allowed: readonly string[] | undefined) =>
    opts.tools.describe().filter((t) => toolAllowed(t.name, allowed));
  return {
    draft: (r) =>
      attempt(
        planner,
        {
          goal: r.goal,
          input: r.input,
          tools: tools(r.tools),
          limits: r.limits,
          strategy: r.strategy ?? 'flat',
        },
        opts,
      ),
    revise: (r) => attempt(planner, revisionState(r, tools(r.tools)), opts),
  };
}

async function attempt(
  planner: Planner,
  state: PlannerState,
  opts: PlannerProviderOptions,
): Promise<PlanAttempt> {
  let result: PlannerResult;
  try {
    result = await planner.plan(state);
  } catch (err) {
    const info = toErrorInfo(err);
    const code = info.code === 'tool_error' ? 'planning_failed' : info.code;
    return { ok: false, error: { ...info, code, message: `The planner failed: ${info.message}` } };
  }
  const validation = validateCandidate(
    { steps: stepsOf(result, state.plan) },
    {
      state,
      registry: opts.tools,
      clock: opts.clock,
      ids: opts.ids,
      ...(isPlan(result) && !state.plan ? { planId: result.id } : {}),
    },
  );
  if (!validation.valid || !validation.plan) {
    const errors = validation.errors;
    const list = errors.map((e) => `${e.code}: ${e.message}`).join('; ');
    return {
      ok: false,
      error: { code: 'invalid_plan', message: `The planner's plan is invalid (${list})`, retryable: false },
      details: { errors },
    };
  }
  const plan = validation.plan;
  const own = isPlan(result) ? result.metadata : undefined;
  plan.metadata = state.plan ? { ...replanMetadata(state.plan, plan, state), ...own } : { ...own };
  return { ok: true, plan, estimates: validation.estimates };
}

/**
 * A whole plan's steps; a single step (an iterative planner's next step) is a one-step plan, or on a
 * revision that step added to — or replacing its namesake in — the current plan.
 */
function stepsOf(result: PlannerResult, current: Plan | undefined): PlanStep[] {
  if (isPlan(result)) return result.steps;
  if (!current) return [result];
  const at = current.steps.findIndex((s) => s.id === result.id);
  return at < 0 ? [...current.steps, result] : current.steps.map((s, i) => (i === at ? result : s));
}
