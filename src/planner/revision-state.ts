/**
 * What a planner is told when a run asks for a revision: the goal, the current plan, what each step
 * did, the run state, and why — built the same way by the run's object, the in-process runner and
 * the eval. Pure.
 */
import { snapshotRun } from '../engine/snapshot';
import type { ResultStore, RunState } from '../engine/state';
import type { ToolDescription } from '../executor/registry';
import type { PlannerState } from './contracts';

export type RevisionAsk = { reason: string; step_id?: string; strategy?: string };

export function revisionState(
  s: RunState,
  results: ResultStore,
  tools: ToolDescription[],
  ask: RevisionAsk,
): PlannerState {
  const snap = snapshotRun(s, results);
  const error = ask.step_id !== undefined ? s.steps.get(ask.step_id)?.error : undefined;
  return {
    goal: s.goal,
    input: s.input,
    tools,
    limits: {
      max_steps: s.config.max_steps,
      max_depth: s.config.max_depth,
      token_budget: s.config.token_budget ?? null,
    },
    strategy: s.plan?.strategy,
    plan: s.plan!,
    step_statuses: snap.step_statuses,
    step_results: snap.step_results,
    state: snap.state,
    ...(ask.step_id !== undefined
      ? {
          failure: {
            step_id: ask.step_id,
            reason: error?.message ?? ask.reason,
            ...(error ? { code: error.code } : {}),
          },
        }
      : {}),
    reason:
      ask.strategy === 'insert_recovery'
        ? `${ask.reason}. Insert recovery steps; keep the rest of the plan.`
        : ask.reason,
  };
}
