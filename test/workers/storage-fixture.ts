/**
 * A run object's storage as a fixture: every table of its SQLite (its `CREATE` statement and rows) and
 * its alarm, dumped from a real object (test/storage-capture/capture.test.ts, `npm run
 * capture:storage`) and loaded into a fresh one (test/workers/storage-fixtures.test.ts). The files
 * under test/fixtures/storage/v<N>/ are frozen: a format's fixtures are what runs in flight hold when
 * a release with a newer format is deployed (docs/upgrading.md).
 */
import { abortAllDurableObjects, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import type { StepMessage } from '../../src/durable/messages';

/** One object's storage: its schema in creation order, its rows by table, its alarm. */
export type ObjectDump = {
  run_id: string;
  schema: { type: string; name: string; sql: string }[];
  rows: Record<string, Record<string, SqlStorageValue>[]>;
  alarm: number | null;
};

/** A captured state: the objects of one run (a parent and its child, say), and what else was sent. */
export type StorageFixture = {
  /** The object's storage format stamp when captured (null: none). */
  format: number | null;
  about: string;
  /** `Date.now()` at capture: the times stored relative to it are moved to the test's now. */
  captured_at: number;
  objects: ObjectDump[];
  /** The `steps` queue messages the run had sent and no consumer had taken, as `sendBatch` got them. */
  queued?: MessageSendRequest<StepMessage>[];
  /** Anything else the test needs (keys of demo counters, say). */
  notes?: Record<string, unknown>;
};

/** Internal tables (`_cf_*`, `sqlite_*`) are the runtime's, not the run's. */
const OWN = `name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'`;

/** Dumps run `runId`'s object as it is stored now. */
export async function dumpObject(runId: string): Promise<ObjectDump> {
  return runInDurableObject(env.PLAN_RUN.getByName(runId), async (_i, state) => {
    const sql = state.storage.sql;
    const schema = sql
      .exec<{ type: string; name: string; sql: string }>(
        `SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND ${OWN} ORDER BY rowid`,
      )
      .toArray();
    const rows: ObjectDump['rows'] = {};
    for (const t of schema.filter((s) => s.type === 'table'))
      rows[t.name] = sql.exec(`SELECT * FROM "${t.name}"`).toArray();
    return { run_id: runId, schema, rows, alarm: await state.storage.getAlarm() };
  });
}

/** An epoch-millisecond time (2017–2049): what the rows store times as, besides ISO text. */
const isTime = (v: number) => Number.isInteger(v) && v > 1.5e12 && v < 2.5e12;

/** `value` with every epoch-millisecond time in it (in JSON text too) moved by `shift`. */
export function shiftTimes(value: SqlStorageValue, shift: number): SqlStorageValue {
  if (typeof value === 'number') return isTime(value) ? value + shift : value;
  if (typeof value !== 'string' || !/^[[{]/.test(value)) return value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return value; // a chunk of a spilled value, not JSON of its own
  }
  let moved = false;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'number' && isTime(v)) {
      moved = true;
      return v + shift;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const out = walk(parsed);
  return moved ? JSON.stringify(out) : value;
}

/**
 * Loads the fixture's objects into fresh objects (their run ids must hold nothing yet), as if
 * `elapsedMs` had passed since it was captured: every stored time is moved so that it is that long
 * ago now. The instances that wrote the rows are dropped, then each alarm is set, so the objects wake
 * as a new deployment's would.
 */
export async function loadFixture(f: StorageFixture, elapsedMs = 0): Promise<void> {
  const shift = Date.now() - elapsedMs - f.captured_at;
  for (const o of f.objects) {
    await runInDurableObject(env.PLAN_RUN.getByName(o.run_id), (_i, state) => {
      const sql = state.storage.sql;
      const held = sql.exec(`SELECT name FROM sqlite_master WHERE ${OWN}`).toArray();
      if (held.length > 0) throw new Error(`run ${o.run_id}: its object is not fresh`);
      state.storage.transactionSync(() => {
        for (const s of o.schema) sql.exec(s.sql);
        for (const [table, rows] of Object.entries(o.rows)) {
          for (const row of rows) {
            const cols = Object.keys(row);
            sql.exec(
              `INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
              ...cols.map((c) => shiftTimes(row[c]!, shift)),
            );
          }
        }
      });
    });
  }
  // The instances above were built before the rows existed; the next ones read them.
  await abortAllDurableObjects();
  for (const o of f.objects) {
    if (o.alarm === null) continue;
    await runInDurableObject(env.PLAN_RUN.getByName(o.run_id), (_i, state) =>
      state.storage.setAlarm(o.alarm! + shift),
    );
  }
}
