/**
 * Plans checked or made by the library rather than a planner: a plan a run starts with and the plan
 * a callback hands back (both validated
 * like any submitted plan, keeping the original's id and version), and the next version of a
 * running plan that re-runs or skips one failed step.
 */
import { EdgeplanError } from '../errors';
import type { ToolRegistry } from '../executor/registry';
import { validationLimits, type RunConfig } from '../plan/config';
import type { Estimates } from '../plan/estimates';
import type { Clock, IdSource, Plan } from '../plan/model';
import { validatePlan } from '../plan/validate';
import type { PlannerLimits } from '../planner/contracts';
import type { PlanAttempt } from '../engine/plan-provider';

export type CheckContext = { tools: ToolRegistry; clock: Clock; ids: IdSource; limits: PlannerLimits };

/**
 * Validates a plan a run is started with against the run's limits (a caller's plan: unknown keys are
 * refused) and, given `runInput`, its `{{ input.… }}` references against the run's input; throws `invalid_plan` with every
 * finding in `details.errors`.
 * @example const { plan, estimates } = validateRunPlan(raw, parseRunConfig({}), { tools, clock, ids });
 */
export function validateRunPlan(
  raw: unknown,
  config: RunConfig,
  ctx: Omit<CheckContext, 'limits'> & { runInput?: { value: unknown } },
): { plan: Plan; estimates: Estimates | null } {
  const v = validatePlan(raw, {
    tools: ctx.tools,
    clock: ctx.clock,
    ids: ctx.ids,
    config: validationLimits(config, config.require_dependencies),
    refuseUnknownKeys: true,
    ...(ctx.runInput ? { runInput: ctx.runInput } : {}),
  });
  if (!v.valid || !v.plan) {
    throw new EdgeplanError(
      'invalid_plan',
      `The plan has ${v.errors.length} finding(s): ${findingList(v.errors)}`,
      {
        details: { errors: v.errors },
      },
    );
  }
  return { plan: v.plan, estimates: v.estimates };
}

/**
 * Validates a plan `onPlanGenerated` returned (a modified copy, or the same object edited in place)
 * and, given `runInput`, its `{{ input.… }}` references against the run's input, as the planner's was.
 * @example const out = checkReturnedPlan(await onPlanGenerated(plan), plan, ctx); if (!out.ok) throw …;
 */
export function checkReturnedPlan(
  returned: unknown,
  original: Plan,
  ctx: CheckContext,
  source: string,
  runInput?: { value: unknown },
): PlanAttempt {
  const v = validatePlan(returned, {
    tools: ctx.tools,
    clock: ctx.clock,
    ids: { id: () => original.id, uuid: () => ctx.ids.uuid() },
    config: {
      max_steps: ctx.limits.max_steps,
      max_depth: ctx.limits.max_depth,
      require_dependencies: false,
      require_fallbacks: ctx.limits.require_fallbacks === true,
      ...(ctx.limits.token_budget != null ? { token_budget: ctx.limits.token_budget } : {}),
    },
    ...(runInput ? { runInput } : {}),
  });
  if (!v.valid || !v.plan) {
    const list = findingList(v.errors);
    return {
      ok: false,
      error: {
        code: 'invalid_plan',
        message: `The plan ${source} returned has ${v.errors.length} finding(s): ${list}`,
        retryable: false,
      },
      details: { errors: v.errors },
    };
  }
  const plan: Plan = {
    ...v.plan,
    version: original.version,
    goal: v.plan.goal || original.goal,
    strategy: original.strategy,
  };
  return { ok: true, plan, estimates: v.estimates };
}

/** The next version with the same steps: a failed step in it runs again. */
export function retryVersion(plan: Plan): Plan {
  return { ...plan, version: plan.version + 1 };
}

/**
 * The next version with `stepId` switched off (`when: "false"`): the engine skips it, and steps that
 * depend on it run unless they read its output.
 */
export function skipVersion(plan: Plan, stepId: string): Plan {
  return {
    ...plan,
    version: plan.version + 1,
    steps: plan.steps.map((s) => (s.id === stepId ? { ...s, when: 'false' } : s)),
  };
}

function findingList(errors: readonly { code: string; message: string }[]): string {
  return errors.map((e) => `${e.code}: ${e.message}`).join('; ');
}
