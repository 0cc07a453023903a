/**
 * A child run's `parent` meta row: the parent attempt it reports its outcome to when it ends
 * (child-runs.ts). Written once, when the child is created; its one schema is read back here.
 */
import { z } from 'zod';
import type { ParentRef } from '../engine/child-run';
import { parseJsonRow } from './row-schemas';
import type { SqlStore } from './sql-store';

const PARENT_KEY = 'parent';

const ParentRefSchema = z.object({
  run_id: z.string().min(1),
  step_id: z.string().min(1),
  attempt: z.number().int().min(0),
}) satisfies z.ZodType<ParentRef, unknown>;

/** Records the parent attempt of a new child run. */
export function writeParent(store: SqlStore, parent: ParentRef): void {
  store.setMeta(PARENT_KEY, JSON.stringify(parent));
}

/** Whether the run is a child run (its row is not read: only whether there is one). */
export function hasParent(store: SqlStore): boolean {
  return store.getMeta(PARENT_KEY) !== null;
}

/**
 * The parent attempt the run reports to, or null for a run that is no child. A row that is not JSON
 * or does not fit throws the `run_unreadable` error ({@link isUnreadableRun}), naming the row.
 */
export function readParent(store: SqlStore): ParentRef | null {
  const raw = store.getMeta(PARENT_KEY);
  return raw === null ? null : parseJsonRow('parent', ParentRefSchema, raw);
}
