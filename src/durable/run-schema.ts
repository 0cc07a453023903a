/**
 * A run object's tables, created by the run's first transaction. A new Durable Object's database
 * costs a commit for every turn that writes to it; creating the tables in the constructor cost a
 * commit of its own before `create` could begin (~4–10 ms on a disk, blocking the thread). And an
 * object that is only read — `GET /v1/runs/<an id no run has>` — now leaves no tables behind.
 *
 * The tables most runs never write — leases, side work, state variables — are created with their
 * first row instead (lazy-table.ts).
 */
import type { Leases } from './leases';
import type { SideWorkJournal } from './side-work-journal';
import type { SqlStore } from './sql-store';
import { STAMPED_SCHEMA } from './store-tables';

/**
 * Creates the run's tables, stamped with this release's storage format (idempotent; one call), then
 * tells their keepers they exist.
 */
export function createRunTables(
  sql: SqlStorage,
  keepers: { store: SqlStore; journal: SideWorkJournal; leases: Leases },
): void {
  // No run's tables yet: a new database, where no table created on first use exists either.
  const fresh = !keepers.store.exists;
  sql.exec(STAMPED_SCHEMA);
  keepers.store.tablesCreated(fresh);
  if (fresh) {
    keepers.journal.fresh();
    keepers.leases.fresh();
  }
}
