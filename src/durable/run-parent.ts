/**
 * A child run's parent: the run and step whose attempt started it (child-runs.ts), kept in the child
 * object's `parent` meta row from its creation. Read back checked (STYLE §8), and shown as the API and
 * the run index show it: `parent_run_id` and `parent_step_id`, null for a run no step started.
 */
import type { ParentRef } from '../engine/child-run';
import { parseJsonRow, ParentRefSchema } from './row-schemas';
import type { SqlStore } from './sql-store';

/** The meta key of a child run's parent. */
export const PARENT_META = 'parent';

/** A run's parent as the API and the run index show it. */
export type ParentFields = { parent_run_id: string | null; parent_step_id: string | null };

/**
 * The run's parent attempt, or null for a run no step started. A row that does not fit throws the
 * error the API answers with `run_unreadable`.
 * @example readParent(store) // { run_id: 'run_…', step_id: 'research', attempt: 1 } or null
 */
export function readParent(store: SqlStore): ParentRef | null {
  const raw = store.getMeta(PARENT_META);
  return raw === null ? null : parseJsonRow('parent', ParentRefSchema, raw);
}

/** Whether the run is a child run (its row is not read: only whether there is one). */
export function hasParent(store: SqlStore): boolean {
  return store.getMeta(PARENT_META) !== null;
}

/** Stores a new child run's parent (with the run's first transaction). */
export function writeParent(store: SqlStore, parent: ParentRef): void {
  store.setMeta(PARENT_META, JSON.stringify(parent));
}

/**
 * The parent as the API and the index show it.
 * @example parentFields(null) // { parent_run_id: null, parent_step_id: null }
 */
export function parentFields(parent: ParentRef | null): ParentFields {
  return { parent_run_id: parent?.run_id ?? null, parent_step_id: parent?.step_id ?? null };
}
