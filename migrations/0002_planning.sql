-- Planning provenance (SPEC §3): one row per LLM planning attempt. Prompts and answers are stored
-- with secrets redacted and capped in size by the planner.
CREATE TABLE IF NOT EXISTS planning_attempts (
  id TEXT PRIMARY KEY,
  planning_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  model TEXT NOT NULL,
  temperature REAL,
  template_id TEXT NOT NULL,
  template_version TEXT NOT NULL,
  retry INTEGER NOT NULL,
  candidate INTEGER NOT NULL DEFAULT 0,
  response_format TEXT NOT NULL,
  prompt TEXT NOT NULL,
  raw_output TEXT,
  outcome TEXT NOT NULL,
  error TEXT,
  parse_format TEXT,
  findings_json TEXT NOT NULL DEFAULT '[]',
  prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0,
  latency_ms INTEGER NOT NULL DEFAULT 0,
  plan_id TEXT,
  strategy TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS planning_attempts_planning ON planning_attempts (planning_id, seq);
CREATE INDEX IF NOT EXISTS planning_attempts_model ON planning_attempts (model, created_at DESC);
CREATE INDEX IF NOT EXISTS planning_attempts_plan ON planning_attempts (plan_id) WHERE plan_id IS NOT NULL;

-- Per-model planning reliability, updated with every attempt; rates are derived when read.
CREATE TABLE IF NOT EXISTS model_reliability (
  model TEXT PRIMARY KEY,
  attempts INTEGER NOT NULL DEFAULT 0,
  successes INTEGER NOT NULL DEFAULT 0,
  parse_failures INTEGER NOT NULL DEFAULT 0,
  validation_failures INTEGER NOT NULL DEFAULT 0,
  call_failures INTEGER NOT NULL DEFAULT 0,
  total_latency_ms INTEGER NOT NULL DEFAULT 0,
  updated_at TEXT NOT NULL
);
