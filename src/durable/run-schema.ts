/**
 * A run object's tables, created by the run's first transaction. A new Durable Object's database
 * costs a commit for every turn that writes to it; creating the tables in the constructor cost a
 * commit of its own before `create` could begin (~4–10 ms on a disk, blocking the thread). And an
 * object that is only read — `GET /v1/runs/<an id no run has>` — now leaves no tables behind.
 */
import { LEASES_SCHEMA } from './leases';
import { SIDE_WORK_SCHEMA } from './side-work-journal';
import { STORE_SCHEMA, type SqlStore } from './sql-store';

const RUN_SCHEMA = STORE_SCHEMA + SIDE_WORK_SCHEMA + LEASES_SCHEMA;

/** Creates every table of a run (idempotent; one call), then tells the store they exist. */
export function createRunTables(sql: SqlStorage, store: SqlStore): void {
  sql.exec(RUN_SCHEMA);
  store.tablesCreated();
}
