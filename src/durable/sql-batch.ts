/**
 * Many rows a statement in a Durable Object's SQLite: a statement costs more than a row, and DO SQL
 * binds at most 100 parameters per statement, so rows go in chunks that fit.
 */

import { PLATFORM_LIMITS } from '../platform-limits';

/** Durable Object SQL binds at most 100 parameters per statement. */
const MAX_PARAMS = PLATFORM_LIMITS.sqlBoundParameters.value;
/** Text bound in one multi-row statement; a larger row gets a statement of its own. */
const MAX_BATCH_BYTES = 1024 * 1024;

/** `(?, ?), (?, ?)`: `rows` placeholders tuples of `width`. */
export function tuples(rows: number, width: number): string {
  const one = `(${new Array<string>(width).fill('?').join(', ')})`;
  return new Array<string>(rows).fill(one).join(', ');
}

/** A SQL value read back as text (every column the run's store reads as a string is TEXT). */
export const sqlText = (v: SqlStorageValue | undefined): string =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';

/** Statement texts by their parts and row count (see {@link statementFor}). */
const STATEMENTS = new Map<string, Map<string, string[]>>();

/**
 * `head`, `rows` placeholder tuples of `width`, then `tail`: built once per shape, so a statement run
 * again (a chain's every step) costs no string building, and workerd finds its compiled statement
 * (cached per object, keyed by the text) by the same string.
 */
export function statementFor(head: string, rows: number, width: number, tail = ''): string {
  let byTail = STATEMENTS.get(head);
  if (!byTail) STATEMENTS.set(head, (byTail = new Map<string, string[]>()));
  let byRows = byTail.get(tail);
  if (!byRows) byTail.set(tail, (byRows = []));
  return (byRows[rows] ??= `${head} ${tuples(rows, width)}${tail}`);
}

/** One `INSERT … VALUES (…), (…)` per chunk of rows (see {@link chunked}); `head` ends at `VALUES`. */
export function insertMany(
  sql: SqlStorage,
  head: string,
  tail: string,
  rows: readonly SqlStorageValue[][],
): void {
  const width = rows[0]?.length ?? 1;
  chunked(rows, width, (chunk) => sql.exec(statementFor(head, chunk.length, width, tail), ...chunk.flat()));
}

/**
 * Runs `run` on consecutive chunks of `items` of `width` parameters each, within the bound-parameter
 * limit and about {@link MAX_BATCH_BYTES} of text a statement.
 */
export function chunked<T>(items: readonly T[], width: number, run: (chunk: readonly T[]) => void): void {
  for (let i = 0; i < items.length;) {
    let n = 0;
    let bytes = 0;
    while (i + n < items.length && (n + 1) * width <= MAX_PARAMS && (n === 0 || bytes < MAX_BATCH_BYTES)) {
      bytes += textBytes(items[i + n]!);
      n++;
    }
    run(items.slice(i, i + n));
    i += n;
  }
}

/** The text a row binds (its string values' lengths). */
function textBytes(item: unknown): number {
  let bytes = 0;
  for (const v of Array.isArray(item) ? item : Object.values(item as object))
    if (typeof v === 'string') bytes += v.length;
  return bytes;
}
