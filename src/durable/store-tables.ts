/** The run store's tables, as SQL: created by a run's first transaction (run-schema.ts). */
import { BASE_FORMAT, FORMAT_KEY } from './storage-format';

/**
 * The store's tables (every statement idempotent). Steps and attempts, whose rows are small, are kept
 * in their primary key's b-tree alone (`WITHOUT ROWID`): a new object creates two b-trees fewer.
 * State variables (TEA plans only) are in a table of their own, created with the first one.
 */
export const STORE_SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS plans (version INTEGER PRIMARY KEY, plan_id TEXT NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS steps (step_id TEXT PRIMARY KEY, runtime TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS attempts (
  step_id TEXT NOT NULL, attempt INTEGER NOT NULL, plan_version INTEGER NOT NULL, action TEXT NOT NULL,
  idempotency_key TEXT NOT NULL, dispatch TEXT NOT NULL, status TEXT NOT NULL,
  scheduled_at TEXT NOT NULL, invoked_at TEXT, finished_at TEXT, error_code TEXT,
  PRIMARY KEY (step_id, attempt)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, event_type TEXT NOT NULL, step_id TEXT, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outputs (step_id TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS blobs (id TEXT NOT NULL, chunk INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (id, chunk));
`;

/**
 * A new run's tables, stamped with the storage format most runs are written in (storage-format.ts)
 * in the same call: the stamp costs the first transaction a row, no statement of its own. A run whose
 * config needs a newer format is stamped again in the same transaction (run-driver.ts).
 */
export const STAMPED_SCHEMA = `${STORE_SCHEMA}
INSERT OR IGNORE INTO meta (key, value) VALUES ('${FORMAT_KEY}', '${BASE_FORMAT}');
`;

/** State variables (TEA plans only), created with the first one (lazy-table.ts). */
export const VARS_SCHEMA = 'CREATE TABLE IF NOT EXISTS vars (key TEXT PRIMARY KEY, value TEXT NOT NULL);';
