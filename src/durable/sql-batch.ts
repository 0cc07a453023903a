/**
 * Many rows a statement in a Durable Object's SQLite: a statement costs more than a row, and DO SQL
 * binds at most 100 parameters per statement, so rows go in chunks that fit.
 */

/** Durable Object SQL binds at most 100 parameters per statement. */
const MAX_PARAMS = 100;
/** Text bound in one multi-row statement; a larger row gets a statement of its own. */
const MAX_BATCH_BYTES = 1024 * 1024;

/** `(?, ?), (?, ?)`: `rows` placeholders tuples of `width`. */
export function tuples(rows: number, width: number): string {
  const one = `(${new Array<string>(width).fill('?').join(', ')})`;
  return new Array<string>(rows).fill(one).join(', ');
}

/** One `INSERT … VALUES (…), (…)` per chunk of rows (see {@link chunked}); `head` ends at `VALUES`. */
export function insertMany(
  sql: SqlStorage,
  head: string,
  tail: string,
  rows: readonly SqlStorageValue[][],
): void {
  const width = rows[0]?.length ?? 1;
  chunked(rows, width, (chunk) => sql.exec(`${head} ${tuples(chunk.length, width)}${tail}`, ...chunk.flat()));
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
