-- RUN_RETENTION_DAYS's sweep (src/durable/retention-sweep.ts) pages through ended runs oldest first:
-- with this index a page reads its own rows, not the whole run list. Live runs (no completed_at) are
-- left out of it.
CREATE INDEX IF NOT EXISTS runs_completed ON runs (completed_at, run_id) WHERE completed_at IS NOT NULL;
