/**
 * The two runs made of every valid plan: as planned (does it complete?) and with a failure injected
 * into one step under `on_step_failure: "replan"` (does the planner's revision get the run to the
 * end?). Revisions go through `planFromState` exactly as a run's Durable Object asks for them.
 */
import type { ErrorInfo } from '../../src/errors';
import { planAttemptOf, revisionState } from '../../src/planner/planning-provider';
import type { PlanAttempt, ReviseRequest } from '../../src/engine/plan-provider';
import type { RunConfigInput } from '../../src/plan/config';
import { buildGraph } from '../../src/plan/graph';
import type { IdSource, Plan } from '../../src/plan/model';
import { planFromState } from '../../src/planner/pipeline';
import type { PlannerDeps } from '../../src/planner/types';
import { runPlan } from './executor';
import type { EvalGoal } from './goals';
import type { GoalResult } from './summary';
import { evalTools } from './tools';

/** Parallel, so a missing dependency shows up as a step running too early. */
const RUN_CONFIG: RunConfigInput = { execution_mode: 'parallel', max_parallel: 4 };

const REVISION_CONFIG: RunConfigInput = {
  ...RUN_CONFIG,
  on_step_failure: 'replan',
  revision_strategy: 'replan_remaining',
  max_revisions: 2,
};

/** Runs the plan as it is. */
export async function executionScenario(
  goal: EvalGoal,
  plan: Plan,
  ids: IdSource,
): Promise<NonNullable<GoalResult['execution']>> {
  const report = await runPlan({
    runId: ids.id(`run_${goal.id}`),
    goal: goal.goal,
    plan,
    input: goal.input,
    tools: evalTools(),
    config: RUN_CONFIG,
    ids,
  });
  return {
    status: report.status,
    completed: report.status === 'completed',
    error: report.error?.message ?? null,
  };
}

/**
 * Fails {@link injectionTarget}'s attempts until the run asks for a revision, then lets the revised
 * plan run. Effective when the run completes and a completed step of the final plan did the failed
 * step's kind of work (same tool): dropping the work is not a fix.
 */
export async function revisionScenario(
  goal: EvalGoal,
  plan: Plan,
  planner: PlannerDeps,
): Promise<NonNullable<GoalResult['revision']>> {
  const target = injectionTarget(plan);
  const action = plan.steps.find((s) => s.id === target)!.action;
  let requested = false;
  let tokens = 0;
  const report = await runPlan({
    runId: planner.ids.id(`rev_${goal.id}`),
    goal: goal.goal,
    plan,
    input: goal.input,
    tools: evalTools(),
    config: REVISION_CONFIG,
    ids: planner.ids,
    intercept: (a) => (!requested && a.step_id === target ? injectedFailure(a.action, target) : undefined),
    revise: async (request) => {
      requested = true;
      const out = await revise(request, planner);
      tokens += out.tokens;
      return out.attempt;
    },
  });
  const redone = (report.plan?.steps ?? []).some(
    (s) => s.action === action && report.step_statuses[s.id] === 'completed',
  );
  return {
    failed_step: target,
    requested,
    effective: requested && report.status === 'completed' && report.revisions > 0 && redone,
    status: report.status,
    revisions: report.revisions,
    tokens,
    error: report.error?.message ?? null,
  };
}

/**
 * The step a failure is injected into: one in the middle of the graph (it has a dependency and a
 * dependent), so the revision keeps completed work and re-plans what follows; else the first step
 * something depends on; else the last step.
 */
export function injectionTarget(plan: Plan): string {
  const graph = buildGraph(plan.steps);
  const inner = graph.ids.findIndex((_, i) => graph.deps[i]!.length > 0 && graph.dependents[i]!.length > 0);
  const feeding = graph.ids.findIndex((_, i) => graph.dependents[i]!.length > 0);
  const at = inner >= 0 ? inner : feeding >= 0 ? feeding : graph.ids.length - 1;
  return graph.ids[at]!;
}

function injectedFailure(action: string, stepId: string): ErrorInfo {
  return {
    code: 'injected_failure',
    message: `${action} was briefly unavailable for step "${stepId}" (failure injected by the eval); it works when called again`,
    retryable: false,
  };
}

/** The eval's planner asked for a revision with the request the runner built, as a PlanProvider answers. */
async function revise(
  request: ReviseRequest,
  planner: PlannerDeps,
): Promise<{ attempt: PlanAttempt; tokens: number }> {
  const outcome = await planFromState(revisionState(request, planner.tools.describe()), {}, planner);
  return { attempt: planAttemptOf(outcome), tokens: outcome.tokens.total };
}
