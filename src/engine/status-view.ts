/**
 * `plan.status` (seed 001) over a run: aggregated counts, progress, and optionally the subtasks.
 * Seed 001 calls a running subtask `in_progress`; both names are given. With a `budget`, subtask
 * results are included while they fit and marked past that, and long error messages cut short past
 * theirs, as in a snapshot (value-budget.ts).
 */
import type { StepStatus } from '../plan/model';
import { countSteps, isInterrupted, outputRef, progressOf, type StepCounts } from './snapshot';
import type { ResultStore, RunState } from './state';
import { ValueBudget, type SnapshotBudget } from './value-budget';

export type Subtask = {
  id: string;
  description: string;
  action: string;
  dependencies: string[];
  status: StepStatus | 'in_progress';
  /** The run ended while it was in progress: see `StepDetail.interrupted`. */
  interrupted: boolean;
  result: unknown;
  error?: string;
};

export type PlanStatusView = {
  status: StepCounts & { in_progress: number };
  progress: number;
  plan_id: string | null;
  plan_version: number | null;
  goal: string;
  run_status: RunState['status'];
  subtasks?: Subtask[];
  success: boolean;
};

export function planStatus(
  state: RunState,
  results: ResultStore,
  opts: { include_details?: boolean; include_completed?: boolean } = {},
  budget?: SnapshotBudget,
): PlanStatusView {
  const bound = budget ? new ValueBudget(budget) : null;
  const counts = countSteps(state);
  const view: PlanStatusView = {
    status: { ...counts, in_progress: counts.running },
    progress: progressOf(counts),
    plan_id: state.plan?.id ?? null,
    plan_version: state.plan?.version ?? null,
    goal: state.goal,
    run_status: state.status,
    success: state.status !== 'failed' && state.status !== 'aborted' && state.status !== 'cancelled',
  };
  if (opts.include_details && state.plan && state.graph) {
    const includeCompleted = opts.include_completed ?? true;
    view.subtasks = [];
    for (const [i, step] of state.plan.steps.entries()) {
      const rt = state.steps.get(step.id)!;
      if (!includeCompleted && rt.status === 'completed') continue;
      const sub: Subtask = {
        id: step.id,
        description: step.description,
        action: step.action,
        dependencies: state.graph.deps[i] ?? [],
        status: rt.status === 'running' ? 'in_progress' : rt.status,
        interrupted: isInterrupted(state, rt.status),
        result:
          rt.status !== 'completed'
            ? null
            : bound
              ? bound.take(outputRef(step.id), () => results.getOutput(step.id).value ?? null)
              : (results.getOutput(step.id).value ?? null),
      };
      if (rt.error) sub.error = (bound ? bound.error(rt.error) : rt.error).message;
      view.subtasks.push(sub);
    }
  }
  return view;
}
