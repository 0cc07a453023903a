/**
 * A run's steps as a plan version lists them, before or beside what events say of them: a step no
 * event has touched yet, how many attempts a round of it may take, and a version installed over the
 * steps a view already has (the run view's fold and the dashboard's steps now).
 */
import type { PlanStep } from './types';
import type { RunView, StepView } from './run-view-types';

/** Installs `steps` (a plan version) as the view's steps, keeping what the steps it had did. */
export function setPlan(view: RunView, steps: readonly PlanStep[], version: number | null): void {
  const before = new Map(view.steps.map((s) => [s.id, s]));
  view.steps = steps.map((s) => {
    const kept = before.get(s.id);
    const limit = attemptLimit(s, view.retry_failed_steps);
    return kept
      ? { ...kept, planned: s, dependencies: s.dependencies ?? [], attempt_limit: limit }
      : unstartedStep(s, limit);
  });
  view.plan_version = version;
}

/** Attempts one round of the step may take (see `StepView.attempt_limit`). */
export function attemptLimit(s: PlanStep, retryFailedSteps: number | null): number | null {
  const retries = typeof s.retries === 'number' ? s.retries : retryFailedSteps;
  return retries === null ? null : 1 + retries + (s.fallback_action ? 1 : 0);
}

/** A planned step no event has touched yet. */
export function unstartedStep(s: PlanStep, attempt_limit: number | null = null): StepView {
  return {
    id: s.id,
    action: s.action ?? (s.subplan ? 'subplan' : ''),
    dependencies: s.dependencies ?? [],
    status: 'pending',
    attempts: 0,
    round: null,
    attempt_limit,
    started_at: null,
    latency_ms: null,
    error: null,
    skip_reason: null,
    fallback: false,
    history: [],
    planned: s,
  };
}
