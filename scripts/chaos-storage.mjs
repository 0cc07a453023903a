// What a `wrangler dev --persist-to` state directory still stores for a run, read from its files (the
// local D1 database and KV namespace are SQLite files miniflare keeps under v3/): for scripts/chaos.mjs,
// which must see whether a deletion finished without sending the run a request (a read of an ended
// run arms its retention alarm, and a DELETE finishes a deletion itself). Needs node:sqlite (Node 22.5+,
// the project's own Node in node_modules/.bin).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/** The SQLite files of one miniflare store (`d1`, `kv`), its metadata file left out. */
function files(persist, kind, object) {
  const dir = join(persist, 'v3', kind, object);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sqlite') && f !== 'metadata.sqlite')
    .map((f) => join(dir, f));
}

function query(file, sql, ...params) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db.prepare(sql).all(...params);
  } catch (err) {
    // A table not made yet (no KV write so far) holds nothing.
    if (/no such table/.test(String(err))) return [];
    throw err;
  } finally {
    db.close();
  }
}

/**
 * What is stored for `runId` outside its object: its D1 index row, plan versions and planning attempts
 * (by run, or by one of `planIds`), and its KV copies (`plan:<run>:v<n>`). Counts, plus the KV keys.
 */
export function storedFor(persist, runId, planIds = []) {
  const out = { index_rows: 0, plan_versions: 0, planning_attempts: 0, kv_keys: [] };
  for (const f of files(persist, 'd1', 'miniflare-D1DatabaseObject')) {
    out.index_rows += query(f, 'SELECT 1 FROM runs WHERE run_id = ?', runId).length;
    out.plan_versions += query(f, 'SELECT 1 FROM plan_versions WHERE run_id = ?', runId).length;
    out.planning_attempts += query(
      f,
      'SELECT 1 FROM planning_attempts WHERE run_id = ? OR plan_id IN (SELECT value FROM json_each(?))',
      runId,
      JSON.stringify(planIds),
    ).length;
  }
  for (const f of files(persist, 'kv', 'miniflare-KVNamespaceObject'))
    out.kv_keys.push(
      ...query(f, 'SELECT key FROM _mf_entries WHERE key LIKE ?', `plan:${runId}:%`).map((r) => r.key),
    );
  return out;
}

/** Whether nothing is stored for the run outside its object any more. */
export const nothingStored = (s) =>
  s.index_rows === 0 && s.plan_versions === 0 && s.planning_attempts === 0 && s.kv_keys.length === 0;
