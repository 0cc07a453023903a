/**
 * A run's durable storage in its Durable Object's SQLite: one row per step, per attempt and per event
 * (never one state blob), outputs and state variables in rows of their own, and values too large for a
 * row split into chunks in `blobs` and referenced. Synchronous, as DO SQLite is.
 */
import type { ResultStore } from '../engine/state';
import { AttemptRows } from './attempt-rows';
import { EventLog } from './event-log';
import { insertMany, sqlText } from './sql-batch';
import { jsonOf } from './plan-text';
import { hasTable, LazyTable } from './lazy-table';
import { KEY_OF, SEQ_KEY, SpilledValues, STORED_BYTES, type KeyedTable } from './spilled-values';
import { BASE_FORMAT, FORMAT_KEY, STORAGE_FORMAT, storedFormat } from './storage-format';
import { STORE_SCHEMA, VARS_SCHEMA } from './store-tables';

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

/** The meta rows read when an existing object's tables are found: its format's stamp, its blob count. */
const STAMPS = `SELECT key, value FROM meta WHERE key IN ('${FORMAT_KEY}', '${SEQ_KEY}')`;

type Row = Record<string, SqlStorageValue>;

export class SqlStore implements ResultStore {
  /** The run's event log (event-log.ts). */
  readonly events: EventLog;
  /** The run's attempt rows (attempt-rows.ts). */
  readonly attempts: AttemptRows;
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
    this.events = new EventLog(sql, this.#spill);
    this.attempts = new AttemptRows(sql);
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
    // A new database, stamped (STAMPED_SCHEMA): nothing spilled, no state variable.
    this.#format = BASE_FORMAT;
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

  // ---- plans, steps ------------------------------------------------------------------------------

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
}
