/**
 * A step of the run's plan as an attempt carries it out: its definition by id, the tool and parameters
 * it runs (its own, or its fallback's), its time limit, and the retries it has left.
 */
import type { PlanStep } from '../plan/model';
import type { RunState, StepRuntime } from './state';

/**
 * The tool and parameters an attempt runs: the step's own, or its fallback's (its own parameters
 * when the fallback names only a tool).
 * @example actionFor(step, true).action; // "search.backup" for fallback_action: "search.backup"
 */
export function actionFor(
  step: PlanStep,
  fallback: boolean,
): { action: string; parameters: Record<string, unknown> } {
  if (!fallback || !step.fallback_action) return { action: step.action, parameters: step.parameters };
  const fb = step.fallback_action;
  return typeof fb === 'string'
    ? { action: fb, parameters: step.parameters }
    : { action: fb.action, parameters: fb.parameters ?? step.parameters };
}

/** Step `id` of the run's plan (the plan and its graph built, the id one of its steps). */
export function stepDef(state: RunState, id: string): PlanStep {
  return state.plan!.steps[state.graph!.index.get(id)!]!;
}

/** A step's time limit as configured: its `timeout_ms`, else the run's `step_timeout`. */
export function stepTimeoutMs(state: RunState, step: PlanStep): number {
  return step.timeout_ms ?? state.config.step_timeout * 1000;
}

/**
 * The retries a step's failing attempt may still have (its `retries`, else the run's
 * `retry_failed_steps`, less those used this round); none for the fallback's attempt. A retryable
 * failure — a timeout among them — is retried while one is left.
 */
export function retriesLeft(state: RunState, step: PlanStep, rt: StepRuntime): number {
  if (rt.on_fallback) return 0;
  return Math.max(0, (step.retries ?? state.config.retry_failed_steps) - rt.retries_used);
}
