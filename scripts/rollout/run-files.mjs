/**
 * What a rehearsal reads straight from `wrangler dev`'s local state: a run's object's SQLite file, the
 * payloads its object stored and its storage-format stamp — what no route shows as written.
 *
 * @example
 * const files = runFiles(persist);
 * files.storedPayload(runId, 'InputReceived'); // { input: 'yes', step_id: 'q' }
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

export function runFiles(persist) {
  /**
   * `read(db)` on the SQLite file of run `runId`'s object, found by its first event; undefined when
   * no file holds the run.
   */
  function readRunFile(runId, read) {
    const dir = join(persist, 'v3', 'do', 'edgeplan-PlanRun');
    for (const f of readdirSync(dir).filter((f) => f.endsWith('.sqlite'))) {
      const db = new DatabaseSync(join(dir, f));
      try {
        const created = db.prepare('SELECT count(*) AS n FROM events WHERE seq = 1 AND body LIKE ?');
        if (created.get(`%"${runId}"%`).n === 0) continue;
        return read(db);
      } catch {
        // not a run's file (a demo counter's, or one without tables)
      } finally {
        db.close();
      }
    }
    return undefined;
  }
  return {
    /** The payload of run `runId`'s first stored `type` event, as its object wrote it. */
    storedPayload: (runId, type) =>
      readRunFile(runId, (db) => {
        const row = db.prepare('SELECT body FROM events WHERE body LIKE ? ORDER BY seq LIMIT 1');
        const body = row.get(`%"event_type":"${type}"%`)?.body;
        return body === undefined ? undefined : JSON.parse(body).payload;
      }),
    /** The storage format stamped in run `runId`'s object (null: none). */
    stampOf: (runId) =>
      readRunFile(
        runId,
        (db) => db.prepare("SELECT value FROM meta WHERE key = 'storage_format'").get()?.value ?? null,
      ),
  };
}
