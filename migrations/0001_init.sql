-- Run index: one row per run, kept current by the run's Durable Object.
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY,
  status TEXT NOT NULL,
  goal TEXT NOT NULL DEFAULT '',
  plan_id TEXT,
  plan_version INTEGER,
  step_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  completed_at TEXT
);
CREATE INDEX IF NOT EXISTS runs_status_created ON runs (status, created_at DESC, run_id);
CREATE INDEX IF NOT EXISTS runs_created ON runs (created_at DESC, run_id);

-- Every plan version a run has had.
CREATE TABLE IF NOT EXISTS plan_versions (
  run_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  plan_id TEXT NOT NULL,
  plan_json TEXT NOT NULL,
  reason TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (run_id, version)
);
