/**
 * A table a run's object creates on its first write to it, not with the run's others: most runs never
 * write it (leases: queue-dispatched steps; side work: planning, approvals, webhooks; state variables:
 * TEA plans), and every table a new object creates costs CPU in its first commit (measured under
 * `wrangler dev`: ~0.1 ms a table). Reads of a table that was never created find nothing.
 */

/** Whether the database has table `name` (a read: nothing is created). */
export function hasTable(sql: SqlStorage, name: string): boolean {
  return sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", name).toArray().length > 0;
}

export class LazyTable {
  /** Whether the table exists, as this instance knows it (undefined: not looked yet). */
  #exists: boolean | undefined;

  constructor(
    private readonly sql: SqlStorage,
    private readonly name: string,
    private readonly schema: string,
  ) {}

  /** Whether the table exists: looked up once an instance, then known. */
  get exists(): boolean {
    this.#exists ??= hasTable(this.sql, this.name);
    return this.#exists;
  }

  /** Before a write: creates the table unless it exists. */
  ensure(): void {
    if (this.exists) return;
    this.sql.exec(this.schema);
    this.#exists = true;
  }

  /** A new run's object: no table of it exists yet, so there is nothing to look up. */
  absent(): void {
    this.#exists = false;
  }

  /** A transaction rolled back: a table it created went with it. */
  forget(): void {
    this.#exists = undefined;
  }
}
