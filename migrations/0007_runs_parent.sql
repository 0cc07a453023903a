-- A child run's parent (src/durable/child-runs.ts: a sub-plan step, `agent.dispatch`, `plan.execute`):
-- the run and the step that started it, so the run list can say which runs are children and list a
-- run's children (`GET /v1/runs?parent_run_id=`). Null for a run no step started, and for a child run
-- whose row was written before this migration until its object next loads and rewrites it.
ALTER TABLE runs ADD COLUMN parent_run_id TEXT;
ALTER TABLE runs ADD COLUMN parent_step_id TEXT;
CREATE INDEX IF NOT EXISTS runs_parent ON runs (parent_run_id, created_at DESC, run_id)
  WHERE parent_run_id IS NOT NULL;
