-- Which run an attempt planned or revised for, so a run's planning trace keeps the attempts of a
-- planning that failed after a retry planned it again (their rows name no plan to find them by).
-- Null for attempts outside a run (`POST /v1/plans`, `plan.decompose`) and rows written before it.
ALTER TABLE planning_attempts ADD COLUMN run_id TEXT;
CREATE INDEX IF NOT EXISTS planning_attempts_run ON planning_attempts (run_id, created_at) WHERE run_id IS NOT NULL;
