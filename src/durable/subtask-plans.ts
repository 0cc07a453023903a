/**
 * Plans as seed 001's planning actions and TEA pass them around: `{steps}` or `{subtasks}` (each with
 * a status and result), read into a plan; what is left to run; and the plan shown back with its
 * subtasks, or counted for `plan.status`.
 */
import { ToolError } from '../errors';
import { isRecord, type Plan } from '../plan/model';

/** A subtask as seed 001 and TEA show it: a step with its status and result. */
export type TeaSubtask = Plan['steps'][number] & { status?: string; result?: unknown };

/** Seed 001 shows a plan's steps as `subtasks` with a status (and result); both names are given. */
export function withSubtasks(
  plan: Plan,
  results: Record<string, unknown> = {},
): Plan & { subtasks: unknown[] } {
  return {
    ...plan,
    subtasks: plan.steps.map((s) =>
      s.id in results ? { ...s, status: 'completed', result: results[s.id] } : { ...s, status: 'pending' },
    ),
  };
}

/** TEA's error strings (planning_actions.py). */
export const NO_PLAN = 'No plan provided. Use plan.decompose first or provide plan parameter.';
export const NO_PLAN_TO_REPLAN = 'No plan to replan';

/**
 * A plan given to a planning action: `{steps}` or `{subtasks}` (each may carry `status` and
 * `result`), or the whole result of plan.decompose (`output: plan` puts `{plan, …}` in state.plan).
 */
export function asPlan(given: unknown, missing: string = NO_PLAN): Plan {
  let raw = given;
  if (isRecord(raw) && raw.steps === undefined && raw.subtasks === undefined && isRecord(raw.plan))
    raw = raw.plan;
  if (!isRecord(raw) || Object.keys(raw).length === 0)
    throw new ToolError('no_plan', missing, { retryable: false });
  // Seed 001's subtasks carry status and result: they win over a stale `steps` copy.
  const steps = Array.isArray(raw.subtasks) ? raw.subtasks : raw.steps;
  if (!Array.isArray(steps))
    throw new ToolError('invalid_plan', 'Invalid plan structure: it has no steps or subtasks', {
      retryable: false,
    });
  return {
    ...(raw as Plan),
    goal: typeof raw.goal === 'string' ? raw.goal : '',
    steps: steps as Plan['steps'],
  };
}

/**
 * TEA's subtasks name no action (its executor runs them): as steps they are `llm.call` with their
 * description as the prompt, the default a plan gives a step without an action.
 */
export function asSteps(plan: Plan): Plan {
  const steps = plan.steps.map((s) => {
    const p: Record<string, unknown> = isRecord(s.parameters) ? s.parameters : {};
    const bare = !s.action || (s.action === 'llm.call' && p.prompt === undefined && p.messages === undefined);
    return bare ? { ...s, action: 'llm.call', parameters: { prompt: s.description || s.id } } : s;
  });
  return { ...plan, steps };
}

/**
 * The subtasks still to run: completed ones (by their `status`, or a result in `subtask_results`) are
 * left out and dependencies on them dropped, as TEA's plan.execute skips them.
 */
export function remainingPlan(plan: Plan, results: Record<string, unknown>): Plan {
  const done = new Set(
    (plan.steps as TeaSubtask[]).filter((s) => s.status === 'completed' || s.id in results).map((s) => s.id),
  );
  const steps = (plan.steps as TeaSubtask[])
    .filter((s) => !done.has(s.id))
    .map(({ status: _status, result: _result, ...s }) => ({
      ...s,
      given_dependencies: s.dependencies ?? [],
      dependencies: (s.dependencies ?? []).filter((d) => !done.has(d)),
    }));
  return { ...plan, steps: steps };
}

/** `plan.status`'s answer: the subtasks counted by status, the progress, and the subtasks if asked. */
export function statusOf(
  raw: unknown,
  results: Record<string, unknown>,
  details: boolean,
  includeCompleted: boolean,
) {
  const plan = asPlan(raw);
  const counts = { total: 0, pending: 0, in_progress: 0, completed: 0, failed: 0, skipped: 0 };
  const subtasks: unknown[] = [];
  for (const s of plan.steps as TeaSubtask[]) {
    const status = s.id in results ? 'completed' : (s.status ?? 'pending');
    counts.total += 1;
    if (status in counts) counts[status as keyof typeof counts] += 1;
    if (details && (includeCompleted || status !== 'completed'))
      subtasks.push({ ...s, status, result: results[s.id] ?? s.result ?? null });
  }
  const out: Record<string, unknown> = {
    status: counts,
    // TEA's progress: completed and skipped subtasks over all (an empty plan is done).
    progress: counts.total ? (counts.completed + counts.skipped) / counts.total : 1,
    plan_id: plan.id ?? null,
    goal: plan.goal,
    success: true,
  };
  if (details) out.subtasks = subtasks;
  return out;
}
