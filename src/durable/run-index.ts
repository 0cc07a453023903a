/**
 * The run index in D1 (`GET /v1/runs`): one row per run, written by the run's object when its status
 * or its plan changes. An index write that fails is logged, not fatal — the object stays the source of truth.
 */
import type { ParentRef } from '../engine/child-run';
import type { RunState } from '../engine/state';

/**
 * The longest goal the index row holds, in characters: as long as a goal `POST /v1/runs` takes. A
 * submitted plan's `goal` has no limit of its own; whole, a 4 MB one was over what a D1 value holds
 * (2 MB), so the run was never listed, and `GET /v1/runs` carried every listed goal whole.
 */
export const INDEX_GOAL_CHARS = 10_000;

/** The goal as listed: cut to {@link INDEX_GOAL_CHARS}, ending in `…` when cut (the run keeps it whole). */
export function listedGoal(goal: string): string {
  if (goal.length <= INDEX_GOAL_CHARS) return goal;
  // Not between the two halves of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(goal.charAt(INDEX_GOAL_CHARS - 2))
    ? INDEX_GOAL_CHARS - 2
    : INDEX_GOAL_CHARS - 1;
  return `${goal.slice(0, end)}…`;
}

/**
 * The statement that writes the run's index row (the object batches it with its plan versions).
 * `parent`: the attempt that started a child run (run-parent.ts) — written on every write, so a child
 * run's row from before migration 0007 gets its parent when the run's object next writes it.
 */
export function indexRunStatement(
  db: D1Database,
  s: RunState,
  parent: ParentRef | null,
): D1PreparedStatement {
  const now = new Date().toISOString();
  return db
    .prepare(
      `INSERT INTO runs (run_id, status, goal, plan_id, plan_version, step_count, created_at, updated_at,
         completed_at, termination_reason, parent_run_id, parent_step_id)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
       ON CONFLICT(run_id) DO UPDATE SET status = ?2, plan_id = ?4, plan_version = ?5, step_count = ?6,
         updated_at = ?8, completed_at = ?9, termination_reason = ?10, parent_run_id = ?11,
         parent_step_id = ?12`,
    )
    .bind(
      s.run_id,
      s.status,
      listedGoal(s.goal),
      s.plan?.id ?? null,
      s.plan?.version ?? null,
      s.steps.size,
      s.created_at ?? now,
      now,
      s.completed_at,
      s.termination_reason ?? null,
      parent?.run_id ?? null,
      parent?.step_id ?? null,
    );
}
