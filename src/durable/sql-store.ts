/**
 * A run's durable storage in its Durable Object's SQLite: one row per step, per attempt and per event
 * (never one state blob), outputs and state variables in rows of their own, and values too large for a
 * row split into chunks in `blobs` and referenced. Synchronous, as DO SQLite is.
 */
import type { EventType, RunEvent } from '../engine/events';
import type { ResultStore } from '../engine/state';
import { chunked, insertMany, sqlText, statementFor } from './sql-batch';
import { eventJson, jsonOf } from './plan-text';
import { hasTable, LazyTable } from './lazy-table';
import { KEY_OF, SEQ_KEY, SpilledValues, STORED_BYTES, type KeyedTable } from './spilled-values';
import { FORMAT_KEY, STORAGE_FORMAT, storedFormat } from './storage-format';
import { parseEventRow } from './row-schemas';

/** An attempt's new status and times: one by its key, or many joined with a list of `(key…, values…)`. */
const MARK_ONE = `UPDATE attempts SET status = ?3, invoked_at = coalesce(?4, invoked_at),
  finished_at = coalesce(?5, finished_at), error_code = coalesce(?6, error_code)
  WHERE step_id = ?1 AND attempt = ?2`;
const MARK_HEAD = `UPDATE attempts SET status = v.column3, invoked_at = coalesce(v.column4, attempts.invoked_at),
  finished_at = coalesce(v.column5, attempts.finished_at), error_code = coalesce(v.column6, attempts.error_code)
  FROM (VALUES`;
const MARK_TAIL = `) AS v WHERE attempts.step_id = v.column1 AND attempts.attempt = v.column2`;

/** Each keyed table's upsert, built once. */
const UPSERT: Record<KeyedTable, string> = {
  outputs: upsertOf('outputs'),
  vars: upsertOf('vars'),
  meta: upsertOf('meta'),
};
/** Each keyed table's upsert clause, after its `VALUES`. */
const UPSERT_TAIL: Record<KeyedTable, string> = {
  outputs: upsertTailOf('outputs'),
  vars: upsertTailOf('vars'),
  meta: upsertTailOf('meta'),
};
function upsertTailOf(table: KeyedTable): string {
  return ` ON CONFLICT(${KEY_OF[table]}) DO UPDATE SET value = excluded.value`;
}
function upsertOf(table: KeyedTable): string {
  return `INSERT INTO ${table} (${KEY_OF[table]}, value) VALUES (?, ?)${upsertTailOf(table)}`;
}

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

/** The meta rows read when an existing object's tables are found: its format's stamp, its blob count. */
const STAMPS = `SELECT key, value FROM meta WHERE key IN ('${FORMAT_KEY}', '${SEQ_KEY}')`;

/**
 * A new run's tables, stamped with this release's storage format (storage-format.ts) in the same
 * call: the stamp costs the first transaction a row, no statement of its own.
 */
export const STAMPED_SCHEMA = `${STORE_SCHEMA}
INSERT OR IGNORE INTO meta (key, value) VALUES ('${FORMAT_KEY}', '${STORAGE_FORMAT}');
`;

const VARS_SCHEMA = 'CREATE TABLE IF NOT EXISTS vars (key TEXT PRIMARY KEY, value TEXT NOT NULL);';

type Row = Record<string, SqlStorageValue>;

/** A page of the event log, with each event's stored size in bytes. */
export type EventPage = { events: RunEvent[]; sizes: number[]; has_more: boolean };

/** How much stored event JSON {@link SqlStore.eventStream} reads at a time. */
const STREAM_PAGE_BYTES = 4 * 1024 * 1024;

/** A recorded attempt moving on: the new status and the times (and error) that go with it. */
export type AttemptMark = Pick<
  AttemptRow,
  'step_id' | 'attempt' | 'status' | 'invoked_at' | 'finished_at' | 'error_code'
>;

/** One row of `attempts`: scheduled → invoked → succeeded | failed. */
export type AttemptRow = {
  step_id: string;
  attempt: number;
  plan_version: number;
  action: string;
  idempotency_key: string;
  dispatch: string;
  status: 'scheduled' | 'invoked' | 'succeeded' | 'failed';
  scheduled_at: string;
  invoked_at: string | null;
  finished_at: string | null;
  error_code: string | null;
};

export class SqlStore implements ResultStore {
  #exists = false;
  #format = STORAGE_FORMAT;
  readonly #spill: SpilledValues;
  /** Outputs set and not yet written, as stored text, by step (see {@link setOutput}). */
  readonly #pendingOutputs = new Map<string, string>();
  /** Meta values' JSON as this instance last wrote them (setMetaValueIfChanged). */
  readonly #metaText = new Map<string, string>();
  readonly #vars: LazyTable;

  /**
   * With `createTables: false` (the run's object) the tables are not created here: a new run creates
   * them in its first transaction (src/durable/run-schema.ts), so its object commits once, and a read
   * of an id no run has leaves no database behind. Call {@link tablesCreated} once they exist.
   */
  constructor(
    private readonly sql: SqlStorage,
    opts: { createTables?: boolean } = {},
  ) {
    this.#vars = new LazyTable(sql, 'vars', VARS_SCHEMA);
    this.#spill = new SpilledValues(sql);
    if (opts.createTables ?? true) sql.exec(STORE_SCHEMA);
    if (hasTable(sql, 'meta')) this.tablesCreated();
  }

  /**
   * The tables exist (created here, in an earlier life, or by the run's first transaction); `fresh`:
   * just now, in a database that had none, so no table created on first use exists yet either.
   */
  tablesCreated(fresh = false): void {
    this.#exists = true;
    if (!fresh) {
      // The storage format's stamp comes with the blob count: one statement, which loading ran anyway.
      const stamps = new Map<string, string>();
      for (const r of this.sql.exec<Row>(STAMPS)) stamps.set(sqlText(r.key), sqlText(r.value));
      this.#format = storedFormat(stamps.get(FORMAT_KEY) ?? null);
      return this.#spill.reload(stamps.get(SEQ_KEY) ?? null);
    }
    // A new database, stamped with this release's format: nothing spilled, no state variable.
    this.#format = STORAGE_FORMAT;
    this.#vars.absent();
    this.#spill.fresh();
  }

  /** Whether this object's database holds a run's tables. */
  get exists(): boolean {
    return this.#exists;
  }

  /** The storage format the tables are in (storage-format.ts); read with them. */
  get format(): number {
    return this.#format;
  }

  /** The tables were brought to `format` (storage-format.ts's upgradeStorage). */
  upgraded(format: number): void {
    this.#format = format;
  }

  // ---- meta -------------------------------------------------------------------------------------

  deleteMeta(key: string): void {
    this.sql.exec('DELETE FROM meta WHERE key = ?', key);
    this.#metaText.delete(key);
  }

  getMeta(key: string): string | null {
    const row = this.sql.exec<Row>('SELECT value FROM meta WHERE key = ?', key).toArray()[0];
    return row ? sqlText(row.value) : null;
  }

  setMeta(key: string, value: string): void {
    this.sql.exec(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      key,
      value,
    );
  }

  /** A JSON value kept in `meta`, in chunks when large (the run's input, its final output). */
  getMetaValue(key: string): { found: boolean; value?: unknown } {
    const row = this.sql.exec<Row>('SELECT value FROM meta WHERE key = ?', key).toArray()[0];
    return row ? { found: true, value: this.#spill.unpack(sqlText(row.value)) } : { found: false };
  }

  setMetaValue(key: string, value: unknown): void {
    this.#putKeyed('meta', key, value);
  }

  /**
   * {@link setMetaValue}, skipped when the value's JSON is what this instance last wrote for `key`: the
   * run's fields change far less often than once a step, and every rewrite of the row costs a page.
   */
  setMetaValueIfChanged(key: string, value: unknown): void {
    const text = JSON.stringify(value ?? null);
    if (this.#metaText.get(key) === text) return;
    this.sql.exec(UPSERT.meta, key, this.#spill.replace('meta', key, text));
    this.#metaText.set(key, text);
  }

  /** Writes `key`'s value in a keyed table: one statement unless the old or new value is spilled. */
  #putKeyed(table: KeyedTable, key: string, value: unknown): void {
    this.sql.exec(UPSERT[table], key, this.#spill.replace(table, key, JSON.stringify(value ?? null)));
  }

  /** After a rolled-back transaction: what this instance remembers may no longer match the rows. */
  forgetCached(): void {
    this.#pendingOutputs.clear();
    this.#metaText.clear();
    this.#vars.forget();
    this.#spill.reload();
  }

  // ---- ResultStore ----------------------------------------------------------------------------------

  getOutput(stepId: string): { found: boolean; value?: unknown } {
    const pending = this.#pendingOutputs.get(stepId);
    if (pending !== undefined) return { found: true, value: this.#spill.unpack(pending) };
    const row = this.sql.exec<Row>('SELECT value FROM outputs WHERE step_id = ?', stepId).toArray()[0];
    return row ? { found: true, value: this.#spill.unpack(sqlText(row.value)) } : { found: false };
  }

  /**
   * Sets a step's output; written with the decision's others by {@link flushOutputs} (one statement
   * for a layer of results instead of one each), read back meanwhile from memory.
   */
  setOutput(stepId: string, value: unknown): void {
    this.#pendingOutputs.set(stepId, this.#spill.replace('outputs', stepId, JSON.stringify(value ?? null)));
  }

  deleteOutput(stepId: string): void {
    this.#pendingOutputs.delete(stepId);
    this.#spill.drop('outputs', stepId);
    this.sql.exec('DELETE FROM outputs WHERE step_id = ?', stepId);
  }

  /** Writes the outputs set since the last flush, many a statement (the run's object: every decision). */
  flushOutputs(): void {
    if (this.#pendingOutputs.size === 0) return;
    insertMany(this.sql, 'INSERT INTO outputs (step_id, value) VALUES', UPSERT_TAIL.outputs, [
      ...this.#pendingOutputs,
    ]);
    this.#pendingOutputs.clear();
  }

  getVar(key: string): { found: boolean; value?: unknown } {
    if (!this.#vars.exists) return { found: false };
    const row = this.sql.exec<Row>('SELECT value FROM vars WHERE key = ?', key).toArray()[0];
    return row ? { found: true, value: this.#spill.unpack(sqlText(row.value)) } : { found: false };
  }

  setVar(key: string, value: unknown): void {
    this.#vars.ensure();
    this.#putKeyed('vars', key, value);
  }

  /** Stored sizes (UTF-8 bytes of JSON) of every output, read without loading the values. */
  outputSizes(): Map<string, number> {
    return this.#sizes('outputs');
  }

  /** Stored sizes (UTF-8 bytes of JSON) of every state variable, read without loading the values. */
  varSizes(): Map<string, number> {
    if (!this.#vars.exists) return new Map();
    return this.#sizes('vars');
  }

  #sizes(table: KeyedTable): Map<string, number> {
    const out = new Map<string, number>();
    const col = KEY_OF[table];
    for (const r of this.sql.exec<Row>(`SELECT ${col} AS k, ${STORED_BYTES('value')} AS n FROM ${table}`))
      out.set(sqlText(r.k), Number(r.n));
    return out;
  }

  varKeys(): string[] {
    if (!this.#vars.exists) return [];
    return this.sql
      .exec<Row>('SELECT key FROM vars ORDER BY key')
      .toArray()
      .map((r) => sqlText(r.key));
  }

  // ---- plans, steps, attempts -----------------------------------------------------------------------

  putPlan(version: number, planId: string, plan: unknown, createdAt: string): void {
    this.sql.exec(
      'INSERT OR REPLACE INTO plans (version, plan_id, body, created_at) VALUES (?, ?, ?, ?)',
      version,
      planId,
      this.#spill.pack(jsonOf(plan)),
      createdAt,
    );
  }

  getPlan(version?: number): unknown {
    const row =
      version === undefined
        ? this.sql.exec<Row>('SELECT body FROM plans ORDER BY version DESC LIMIT 1').toArray()[0]
        : this.sql.exec<Row>('SELECT body FROM plans WHERE version = ?', version).toArray()[0];
    return row ? this.#spill.unpack(sqlText(row.body)) : null;
  }

  /** The stored size (bytes of JSON) of a plan version, read without loading it. */
  planSize(version: number): number | undefined {
    const row = this.sql
      .exec<Row>(`SELECT ${STORED_BYTES('body')} AS n FROM plans WHERE version = ?`, version)
      .toArray()[0];
    return row ? Number(row.n) : undefined;
  }

  listPlans(): { version: number; plan_id: string; created_at: string }[] {
    return this.sql
      .exec<Row>('SELECT version, plan_id, created_at FROM plans ORDER BY version')
      .toArray()
      .map((r) => ({
        version: Number(r.version),
        plan_id: sqlText(r.plan_id),
        created_at: sqlText(r.created_at),
      }));
  }

  putSteps(rows: readonly (readonly [stepId: string, runtime: unknown])[]): void {
    insertMany(
      this.sql,
      'INSERT INTO steps (step_id, runtime) VALUES',
      ' ON CONFLICT(step_id) DO UPDATE SET runtime = excluded.runtime',
      rows.map(([id, rt]) => [id, JSON.stringify(rt)]),
    );
  }

  deleteStep(stepId: string): void {
    this.sql.exec('DELETE FROM steps WHERE step_id = ?', stepId);
  }

  *steps(): Generator<[string, unknown]> {
    for (const r of this.sql.exec<Row>('SELECT step_id, runtime FROM steps')) {
      yield [sqlText(r.step_id), JSON.parse(sqlText(r.runtime))];
    }
  }

  /** New attempt rows; an attempt already recorded keeps its row. */
  putAttempts(rows: readonly AttemptRow[]): void {
    insertMany(
      this.sql,
      `INSERT OR IGNORE INTO attempts (step_id, attempt, plan_version, action, idempotency_key, dispatch, status,
       scheduled_at, invoked_at, finished_at, error_code) VALUES`,
      '',
      rows.map((a) => [
        a.step_id,
        a.attempt,
        a.plan_version,
        a.action,
        a.idempotency_key,
        a.dispatch,
        a.status,
        a.scheduled_at,
        a.invoked_at,
        a.finished_at,
        a.error_code,
      ]),
    );
  }

  /**
   * Moves recorded attempts on (invoked, then succeeded or failed), many a statement — one by its key
   * (a chain's every step: a third of the cost of joining a one-row list).
   */
  markAttempts(marks: readonly AttemptMark[]): void {
    chunked(marks, 6, (chunk) =>
      this.sql.exec(
        chunk.length === 1 ? MARK_ONE : statementFor(MARK_HEAD, chunk.length, 6, MARK_TAIL),
        ...chunk.flatMap((m) => [m.step_id, m.attempt, m.status, m.invoked_at, m.finished_at, m.error_code]),
      ),
    );
  }

  attempts(stepId?: string): Row[] {
    return stepId === undefined
      ? this.sql.exec<Row>('SELECT * FROM attempts ORDER BY step_id, attempt').toArray()
      : this.sql.exec<Row>('SELECT * FROM attempts WHERE step_id = ? ORDER BY attempt', stepId).toArray();
  }

  /** The attempts (step and number) that called one of `actions`. */
  attemptsOfActions(actions: readonly string[]): { step_id: string; attempt: number }[] {
    return this.sql
      .exec<Row>(
        `SELECT step_id, attempt FROM attempts WHERE action IN (${actions.map(() => '?').join(', ')})`,
        ...actions,
      )
      .toArray()
      .map((r) => ({ step_id: sqlText(r.step_id), attempt: Number(r.attempt) }));
  }

  // ---- events ---------------------------------------------------------------------------------------

  /** Appends events, many rows a statement: a statement costs more than a row. */
  appendEvents(events: readonly RunEvent[]): void {
    insertMany(
      this.sql,
      'INSERT INTO events (seq, event_type, step_id, body) VALUES',
      '',
      events.map((e) => [e.seq, e.event_type, e.references.step_id ?? null, this.#spill.pack(eventJson(e))]),
    );
  }

  /** Every event of one type, oldest first (a scan of the log: for rare reads only). */
  eventsOfType<T extends EventType>(type: T): RunEvent<T>[] {
    return this.sql
      .exec<Row>('SELECT seq, body FROM events WHERE event_type = ? ORDER BY seq', type)
      .toArray()
      .map((r) => this.#event(r) as RunEvent<T>);
  }

  /** Events with seq > after, oldest first, at most `limit`. */
  events(after: number, limit: number, upTo?: number): RunEvent[] {
    const rows =
      upTo === undefined
        ? this.sql.exec<Row>('SELECT seq, body FROM events WHERE seq > ? ORDER BY seq LIMIT ?', after, limit)
        : this.sql.exec<Row>(
            'SELECT seq, body FROM events WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?',
            after,
            upTo,
            limit,
          );
    return rows.toArray().map((r) => this.#event(r));
  }

  /** An event row read back: its JSON, through the envelope's schema (row-schemas.ts). */
  #event(r: Row): RunEvent {
    const seq = Number(r.seq);
    return parseEventRow(seq, this.#spill.unpack(sqlText(r.body), `event ${seq}`));
  }

  /**
   * Events with seq > after (and ≤ upTo), oldest first: at most `limit` of them and, past the first,
   * at most `maxBytes` of stored JSON — so a page of large events stays small. Sizes are read before
   * any body is, and come back with the events.
   */
  eventPage(after: number, limit: number, maxBytes: number, upTo?: number): EventPage {
    const bound = upTo === undefined ? '' : ' AND seq <= ?';
    const args = upTo === undefined ? [after, limit + 1] : [after, upTo, limit + 1];
    const sizes = this.sql
      .exec<Row>(
        `SELECT seq, ${STORED_BYTES('body')} AS n FROM events WHERE seq > ?${bound} ORDER BY seq LIMIT ?`,
        ...args,
      )
      .toArray()
      .map((r) => Number(r.n));
    let taken = 0;
    let bytes = 0;
    while (taken < Math.min(limit, sizes.length) && (taken === 0 || bytes + sizes[taken]! <= maxBytes)) {
      bytes += sizes[taken]!;
      taken++;
    }
    const events = taken === 0 ? [] : this.events(after, taken, upTo);
    return { events, sizes: sizes.slice(0, taken), has_more: sizes.length > taken };
  }

  /**
   * Every event from `after` on, a page at a time (at most `page` events and about 4 MiB), so a long
   * log — or one of large events — is never in memory at once.
   */
  *eventStream(after = 0, upTo?: number, page = 500): Generator<RunEvent> {
    let cursor = after;
    for (;;) {
      const batch = this.eventPage(cursor, page, STREAM_PAGE_BYTES, upTo);
      for (const e of batch.events) yield e;
      if (!batch.has_more || batch.events.length === 0) return;
      cursor = batch.events[batch.events.length - 1]!.seq;
    }
  }

  lastSeq(): number {
    const row = this.sql.exec<Row>('SELECT MAX(seq) AS s FROM events').toArray()[0];
    return row?.s == null ? 0 : Number(row.s);
  }
}
