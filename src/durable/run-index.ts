/**
 * The run index in D1 (`GET /v1/runs`): one row per run, written by the run's object when its status
 * changes. An index write that fails is logged, not fatal — the object stays the source of truth.
 */
import type { RunState } from '../engine/state';

export async function indexRun(db: D1Database, s: RunState): Promise<void> {
  const now = new Date().toISOString();
  try {
    await db
      .prepare(
        `INSERT INTO runs (run_id, status, goal, plan_id, plan_version, step_count, created_at, updated_at, completed_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
         ON CONFLICT(run_id) DO UPDATE SET status = ?2, plan_id = ?4, plan_version = ?5, step_count = ?6,
           updated_at = ?8, completed_at = ?9`,
      )
      .bind(
        s.run_id,
        s.status,
        s.goal,
        s.plan?.id ?? null,
        s.plan?.version ?? null,
        s.steps.size,
        s.created_at ?? now,
        now,
        s.completed_at,
      )
      .run();
  } catch (err) {
    console.error(`run index: could not record ${s.run_id} as ${s.status}`, err);
  }
}
