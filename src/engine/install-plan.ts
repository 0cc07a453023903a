/**
 * A plan installed in the run state: the first, a revision, or the plan streamed in so far. Completed
 * work is kept across versions; the steps a version changed are re-opened.
 */
import { deepEqual } from '../plan/diff';
import { buildGraph } from '../plan/graph';
import type { RunEvent } from './events';
import { newStepRuntime, type RunState, type StepRuntime } from './state';
import { isSettled, recountWaiting, touch } from './step-readiness';

/**
 * The plan streamed in so far (`plan`, null before the first step) with the event's step added. The
 * plan being streamed has the run's strategy and exit criteria already, so a `par` run reflects on a
 * step that finishes before the stream does.
 */
export function withStreamedStep(
  plan: RunState['plan'],
  state: Pick<RunState, 'goal' | 'config'>,
  event: RunEvent<'StepStreamed'>,
): NonNullable<RunState['plan']> {
  const { step, plan_id } = event.payload;
  const criteria = state.config.planning?.success_criteria;
  const base = plan ?? {
    id: plan_id,
    version: 1,
    goal: state.goal,
    strategy: state.config.strategy ?? 'flat',
    steps: [],
    created_at: event.timestamp,
    ...(criteria !== undefined ? { success_criteria: criteria } : {}),
  };
  return { ...base, steps: [...base.steps, step] };
}

/**
 * Installs a plan (first or revised). Steps that keep their id keep their runtime — completed work is
 * never lost, a running attempt keeps running. On a revision, every other step that changed, failed or
 * was skipped is `revised`: it will run (again) under the new plan. Removed steps are forgotten (their
 * late results are ignored), and every unsettled step's wait count is recomputed against the new graph.
 */
export function installPlan(state: RunState, plan: NonNullable<RunState['plan']>, reopen: boolean): void {
  const previous = state.steps;
  // By content, as changedSteps compares: a plan read back from storage has its keys in another order.
  const before = new Map(state.plan?.steps.map((s) => [s.id, s]) ?? []);
  state.plan = plan;
  state.graph = buildGraph(plan.steps);
  state.steps = new Map();
  state.ready.clear();
  for (const step of plan.steps) {
    const old = previous.get(step.id);
    const was = before.get(step.id);
    const changed = old !== undefined && (was === undefined || !deepEqual(was, step));
    let rt: StepRuntime = old ?? newStepRuntime();
    if (
      old &&
      old.status !== 'completed' &&
      old.status !== 'running' &&
      (changed || (reopen && isSettled(old)))
    ) {
      rt = {
        ...old,
        status: 'revised',
        retries_used: 0,
        fallback_used: false,
        error: null,
        handled: false,
        skip_reason: null,
        finished_at: null,
        retry_at: null,
      };
    }
    // A step a later version added or replaced is a new effect: its idempotency key says which version.
    if (plan.version > 1 && (old === undefined || changed)) rt = { ...rt, key_version: plan.version };
    state.steps.set(step.id, rt);
    touch(state, step.id);
  }
  for (const id of previous.keys()) {
    if (state.steps.has(id)) continue;
    state.dirty.add(id);
    state.running.delete(id);
    state.timers.delete(id);
    state.needs_decision.delete(id);
  }
  state.unhandled_failures.clear();
  for (const [id, rt] of state.steps) {
    if (rt.status === 'failed' && !rt.handled) state.unhandled_failures.add(id);
    if (rt.status !== 'running' && rt.retry_at === null) state.timers.delete(id);
  }
  recountWaiting(
    state,
    plan.steps.map((s) => s.id),
  );
}
