/**
 * What a retry may do: whether the run can be retried at all, and which steps a retry re-opens — the
 * whole run's failures and stops, or one step and what it blocked. Pure functions over the state.
 */
import { isSettled } from './step-readiness';
import type { Refusal } from './machine-types';
import type { RunState } from './state';

/**
 * Why a run cannot be retried at all, or null: only a failed, aborted or cancelled run can be, and never
 * one whose plan nobody approved (rejected, or cut off while it awaited approval).
 */
export function notRetryable(s: RunState): Refusal | null {
  if (s.status !== 'failed' && s.status !== 'aborted' && s.status !== 'cancelled') {
    return {
      code: 'run_not_retryable',
      message: `Run ${s.run_id} is ${s.status}; only failed, aborted or cancelled runs can be retried`,
      // A retry sent again after its answer was lost reads here that the run is going again.
      details: { status: s.status },
    };
  }
  if (s.approval && s.approval.decision !== 'granted') {
    return {
      code: 'run_not_retryable',
      message:
        s.approval.decision === 'rejected'
          ? `Run ${s.run_id}'s plan was rejected, and a rejected plan is not run: start a new run`
          : `Run ${s.run_id} was ${s.status} while its plan awaited approval; a retry would run a plan nobody approved: start a new run`,
    };
  }
  return null;
}

/**
 * The steps a retry re-opens. The whole run: failed steps, and steps skipped because of a failure or a
 * stop. One step: that step and what it blocked — and every step the run's stop cut off, the step's
 * own dependencies included, so no step is left unrun behind a run that then says `completed`. A
 * step whose dependency failed is refused: that dependency is the one to retry.
 */
export function resumableSteps(s: RunState, stepId?: string): string[] | Refusal {
  const graph = s.graph!;
  if (stepId !== undefined) {
    const rt = s.steps.get(stepId);
    if (!rt) return { code: 'unknown_step', message: `Run ${s.run_id} has no step "${stepId}"` };
    if (rt.status !== 'failed' && rt.status !== 'skipped') {
      return {
        code: 'step_not_retryable',
        message: `Step "${stepId}" is ${rt.status}; only failed or skipped steps can be retried`,
      };
    }
    const failed = failedAncestor(s, stepId);
    if (failed !== null) {
      return {
        code: 'step_not_retryable',
        message: `Step "${stepId}" depends on "${failed}", which failed: retry "${failed}" (or the whole run)`,
      };
    }
  }
  const open = new Set<string>();
  const roots =
    stepId !== undefined
      ? [stepId, ...graph.ids.filter((id) => wasCutOff(s, id))]
      : graph.ids.filter((id) => isReopenable(s, id));
  const stack = [...roots];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (open.has(id)) continue;
    open.add(id);
    for (const dep of graph.dependents[graph.index.get(id)!] ?? []) {
      const rt = s.steps.get(dep)!;
      if (rt.status === 'skipped' || rt.status === 'failed' || !isSettled(rt)) stack.push(dep);
    }
  }
  // Never re-open completed work, and keep plan order so replay reads naturally.
  return graph.ids.filter((id) => open.has(id) && s.steps.get(id)!.status !== 'completed');
}

/** A failed (unhandled) step among `id`'s dependencies, transitively; null when none failed. */
function failedAncestor(s: RunState, id: string): string | null {
  const graph = s.graph!;
  const seen = new Set<string>();
  const stack = [...(graph.deps[graph.index.get(id)!] ?? [])];
  while (stack.length > 0) {
    const dep = stack.pop()!;
    if (seen.has(dep)) continue;
    seen.add(dep);
    const rt = s.steps.get(dep)!;
    if (rt.status === 'failed' && !rt.handled) return dep;
    stack.push(...(graph.deps[graph.index.get(dep)!] ?? []));
  }
  return null;
}

const REOPENED_SKIPS = new Set(['dependency_failed', 'failure_strategy', 'run_terminated', 'cancelled']);
const STOP_SKIPS = new Set(['run_terminated', 'cancelled']);

/** Failed steps, steps skipped because of a failure or a stop, and steps that never got to run. */
function isReopenable(s: RunState, id: string): boolean {
  const rt = s.steps.get(id)!;
  if (rt.status === 'failed') return !rt.handled;
  if (rt.status === 'skipped') return rt.skip_reason !== null && REOPENED_SKIPS.has(rt.skip_reason);
  return rt.status !== 'completed' && rt.status !== 'running';
}

/** Steps the run's end cut off: skipped because it stopped, or never settled. */
function wasCutOff(s: RunState, id: string): boolean {
  const rt = s.steps.get(id)!;
  if (rt.status === 'skipped') return rt.skip_reason !== null && STOP_SKIPS.has(rt.skip_reason);
  return rt.status !== 'completed' && rt.status !== 'running' && rt.status !== 'failed';
}
