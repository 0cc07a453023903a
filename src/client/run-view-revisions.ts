/**
 * What a new plan version does to the steps a person follows: the steps it adds, changes and
 * removes, and the incarnations it replaces, kept with what they did (`view.replaced`).
 */
import type { PlanStep } from './types';
import type { ReplacedStep, RunView, StepView } from './run-view-types';
import { attemptLimit, unstartedStep } from './planned-steps';

/** The steps a new version added, changed (`changed_steps` already in the plan) and removed. */
export function stepChanges(
  before: readonly StepView[],
  next: readonly PlanStep[],
  changed: readonly string[],
) {
  const had = new Set(before.map((s) => s.id));
  const keeps = new Set(next.map((s) => s.id));
  return {
    added: changed.filter((id) => !had.has(id)),
    changed: changed.filter((id) => had.has(id)),
    removed: before.filter((s) => !keeps.has(s.id)).map((s) => s.id),
  };
}

/** The latest replaced incarnation of step `id`, if a revision replaced one. */
export function lastReplaced(view: RunView, id: string): ReplacedStep | undefined {
  return view.replaced.findLast((r) => r.id === id);
}

/**
 * Before a new plan version is installed: the steps it replaces move to `view.replaced` with what
 * they did. A step the version removes is kept whatever it did (the plan meant to do it). A step it
 * keeps that had failed or was skipped, the run re-opens to run afresh (as the engine does: any
 * such step on a revision, a changed one on an approver's edit): when it had run, its incarnation
 * is kept as replaced, and its current entry starts over. A completed or running step carries on.
 */
export function keepReplaced(
  view: RunView,
  next: readonly PlanStep[],
  by: ReplacedStep['replaced_by'],
  changed: readonly string[],
): void {
  const inNext = new Map(next.map((s) => [s.id, s]));
  view.steps = view.steps.map((s) => {
    const after = inNext.get(s.id);
    const settled = s.status === 'failed' || s.status === 'skipped' || s.status === 'retrying';
    const reopened =
      after !== undefined && settled && (by.kind !== 'approval_edit' || changed.includes(s.id));
    const ran = s.history.length > 0 || s.status === 'failed';
    if (after !== undefined && !reopened) return s;
    if (after !== undefined && !ran)
      return unstartedStep(after, attemptLimit(after, view.retry_failed_steps));
    view.replaced.push({
      ...s,
      started_at: null,
      plan_version: view.plan_version,
      replaced_by: by,
      change: after === undefined ? 'removed' : 'rerun',
    });
    if (after === undefined) return s;
    // Run again under the new version: a fresh history, its attempts numbered on from the old ones.
    return {
      ...unstartedStep(after, attemptLimit(after, view.retry_failed_steps)),
      round: { kind: 'rerun', retry: 0, plan_version: by.version, first_attempt: null },
    };
  });
}

export function stepsAsPlan(view: RunView): PlanStep[] {
  return view.steps.map((s) => ({ id: s.id, action: s.action, dependencies: s.dependencies }));
}
