/**
 * Values too large for a row of the run's SQLite, stored in 512 KiB chunks in `blobs` and referred to
 * from their row as `{"$blob":"<id>"}` (a DO SQLite row holds at most 2 MB). For the keyed tables —
 * outputs, state variables, meta — it keeps which keys' values live in chunks, read once per table
 * and then kept up to date, so replacing a value (whose chunks must go) needs no read first.
 */

import { z } from 'zod';
import { jsonRow, parseJsonRow } from './row-schemas';
import { sqlText } from './sql-batch';

/** Values above this go to `blobs`. */
const INLINE_LIMIT = 512 * 1024;
const CHUNK = 512 * 1024;
/** How a stored value that lives in `blobs` begins: `{"$blob":"<id>"}`. */
const BLOB_REF = '{"$blob":"';
/** The `meta` row counting the blob ids given out. */
export const SEQ_KEY = 'blob_seq';

/**
 * SQL for the size in bytes of the value a column holds — its text, or the chunks it refers to — read
 * without loading either (`octet_length` takes a value's size from the row header).
 */
export const STORED_BYTES = (col: string) =>
  `CASE WHEN substr(${col}, 1, ${BLOB_REF.length}) = '${BLOB_REF}'
     THEN (SELECT sum(octet_length(data)) FROM blobs WHERE id = substr(${col}, ${BLOB_REF.length + 1}, octet_length(${col}) - ${BLOB_REF.length + 2}))
     ELSE octet_length(${col}) END`;

/** Tables of one value per key, and their key column. */
export type KeyedTable = 'outputs' | 'vars' | 'meta';
export const KEY_OF: Record<KeyedTable, string> = { outputs: 'step_id', vars: 'key', meta: 'key' };

type Row = Record<string, SqlStorageValue>;

/**
 * What a value stored in chunks leaves in its row ({@link SpilledValues.pack}). A text that begins
 * like it and is not it is never written (such a value goes to chunks itself), so one that does not
 * fit is a row this release cannot read: the `run_unreadable` error.
 */
const BlobRefSchema = z.strictObject({ $blob: z.string().regex(/^b\d+$/, 'a blob id, b<n>') });

/** The blob id a stored value refers to, or null for a value stored inline. */
function blobIdOf(stored: string): string | null {
  return stored.startsWith(BLOB_REF) ? parseJsonRow('value reference', BlobRefSchema, stored).$blob : null;
}

export class SpilledValues {
  /** The last blob id given out, counted in `meta` (`blob_seq`). */
  #seq = 0;
  readonly #known = new Map<KeyedTable, Map<string, string>>();

  constructor(private readonly sql: SqlStorage) {}

  /** A new database: no value has spilled into chunks yet, and none is counted — nothing to read. */
  fresh(): void {
    this.#seq = 0;
    for (const table of ['outputs', 'vars', 'meta'] as const) this.#known.set(table, new Map());
  }

  /**
   * An existing database, or one rolled back: what this instance knew is read again when needed.
   * `blobSeq`: the `blob_seq` meta value, when the caller read it already (null: there is none).
   */
  reload(blobSeq?: string | null): void {
    this.#known.clear();
    if (blobSeq === undefined) {
      const row = this.sql.exec<Row>(`SELECT value FROM meta WHERE key = '${SEQ_KEY}'`).toArray()[0];
      blobSeq = row ? sqlText(row.value) : null;
    }
    this.#seq = Number(blobSeq ?? 0);
  }

  /**
   * A value's JSON as stored: itself, or (when large) a reference to its chunks, written now. A text
   * that would read as a reference is stored in chunks too, so it comes back as itself.
   */
  pack(json: string): string {
    if (json.length <= INLINE_LIMIT && !json.startsWith(BLOB_REF)) return json;
    const id = `b${++this.#seq}`;
    this.sql.exec(
      `INSERT INTO meta (key, value) VALUES ('${SEQ_KEY}', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
      String(this.#seq),
    );
    for (let i = 0, c = 0; i < json.length; i += CHUNK, c++) {
      this.sql.exec('INSERT INTO blobs (id, chunk, data) VALUES (?, ?, ?)', id, c, json.slice(i, i + CHUNK));
    }
    return JSON.stringify({ $blob: id });
  }

  /** The value a stored text holds, its chunks read back when it refers to them. */
  unpack(stored: string, what = 'value'): unknown {
    const id = blobIdOf(stored);
    if (id === null) return jsonRow(what, stored);
    const parts = this.sql.exec<Row>('SELECT data FROM blobs WHERE id = ? ORDER BY chunk', id).toArray();
    // Chunks missing, or cut short: the value is unreadable, said so, not an anonymous SyntaxError.
    return jsonRow(`${what} ${id} (${parts.length} chunks)`, parts.map((p) => sqlText(p.data)).join(''));
  }

  /** `key`'s new value in `table`, packed: the old value's chunks dropped, the new one's remembered. */
  replace(table: KeyedTable, key: string, json: string): string {
    this.drop(table, key);
    const packed = this.pack(json);
    const id = blobIdOf(packed);
    if (id !== null) this.#of(table).set(key, id);
    return packed;
  }

  /** Drops the chunks of `key`'s value in `table`, if it has any. */
  drop(table: KeyedTable, key: string): void {
    const spilled = this.#of(table);
    const id = spilled.get(key);
    if (id === undefined) return;
    this.sql.exec('DELETE FROM blobs WHERE id = ?', id);
    spilled.delete(key);
  }

  /** The keys of `table` whose value lives in chunks, with the chunks' id. */
  #of(table: KeyedTable): Map<string, string> {
    let known = this.#known.get(table);
    if (!known) {
      known = new Map();
      const rows = this.sql.exec<Row>(
        `SELECT ${KEY_OF[table]} AS k, value FROM ${table} WHERE substr(value, 1, ?) = ?`,
        BLOB_REF.length,
        BLOB_REF,
      );
      for (const r of rows) known.set(sqlText(r.k), blobIdOf(sqlText(r.value))!);
      this.#known.set(table, known);
    }
    return known;
  }
}
