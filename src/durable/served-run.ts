/**
 * The run as `GET /v1/runs/:id` serves it — its snapshot, the run and step that started it, and the
 * approval it waits for — now, or replayed from its log as of an event (`/state?at=`).
 */
import type { ParentRef } from '../engine/child-run';
import { replay, snapshotRun } from '../engine/snapshot';
import type { RunState } from '../engine/state';
import { pendingApproval, type PendingApproval } from './pending-approval';
import { parentFields, type ParentFields } from './run-parent';
import { memoryBudget, servedSnapshot, storeBudget, type ServedSnapshot } from './run-reads';
import type { SqlStore } from './sql-store';

export type ServedRun = ServedSnapshot & ParentFields & { pending_approval: PendingApproval | null };

/** The run now, its values read from its store. */
export function servedRunNow(state: RunState, store: SqlStore, parent: ParentRef | null): ServedRun {
  const snap = snapshotRun(state, store, storeBudget(store, state.run_id));
  return {
    ...servedSnapshot(snap, store),
    ...parentFields(parent),
    pending_approval: pendingApproval(state, store),
  };
}

/** The run as of event `at` (or now), rebuilt from its log alone. */
export function servedRunAt(
  store: SqlStore,
  runId: string,
  parent: ParentRef | null,
  at?: number,
): ServedRun {
  const r = replay(store.events.stream(0, at));
  const snap = snapshotRun(r.state, r.results, memoryBudget(runId));
  return {
    ...servedSnapshot(snap, store),
    ...parentFields(parent),
    pending_approval: pendingApproval(r.state, store, at),
  };
}
