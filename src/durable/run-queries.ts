/**
 * The run's read-only RPCs (plan-run.ts names them): what a caller reads of the run — its snapshot,
 * status, log, values, plan versions and attempts — each read from the driver's machine and store,
 * changing nothing but an upgrade of the storage format.
 */
import { planStatus, type PlanStatusView } from '../engine/status-view';
import type { Plan, RunStatus } from '../plan/model';
import { parentFields, type ParentFields } from './run-parent';
import { servedRunNow, servedRunAt, type ServedRun } from './served-run';
import { knownReason, type PlanVersionRow } from './plan-versions';
import { eventsPage, readValue, storeBudget, streamingVersion, type EventsPage } from './run-reads';
import type { RpcResult } from './rpc-result';
import type { CreatedRun } from './run-requests';
import { replay } from './run-creation';
import type { RunDriver } from './run-driver';

/** What a create with an Idempotency-Key made here answers for `fingerprint` (null: no run here). */
export function keyedRunOf(run: RunDriver, runId: string, fingerprint: string): RpcResult<CreatedRun> | null {
  return run.load() ? replay(run, runId, fingerprint) : null;
}

export function runNow(run: RunDriver): ServedRun | null {
  const m = run.load();
  return m && servedRunNow(m.state, run.store, run.parentRef());
}

export function progressOf(run: RunDriver): { status: RunStatus; last_seq: number } | null {
  const m = run.load();
  return m && { status: m.state.status, last_seq: m.state.seq };
}

export function statusOf(
  run: RunDriver,
  opts: { include_details?: boolean; include_completed?: boolean },
): (PlanStatusView & ParentFields) | null {
  const m = run.load();
  if (!m) return null;
  const view = planStatus(m.state, run.store, opts, storeBudget(run.store, m.state.run_id));
  return { ...view, ...parentFields(run.parentRef()) };
}

export function eventsOf(run: RunDriver, after: number, limit: number): EventsPage {
  if (run.store.exists) run.upgrade();
  return eventsPage(run.store, after, limit);
}

export function valueOf(run: RunDriver, ref: string): RpcResult<{ ref: string; value: unknown }> {
  const m = run.load();
  if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
  return readValue(m.state, run.store, ref);
}

export function runAt(run: RunDriver, at?: number): ServedRun | null {
  if (!run.load()) return null;
  return servedRunAt(run.store, run.machine!.state.run_id, run.parentRef(), at);
}

export function planVersionOf(run: RunDriver, version: number): Plan | null {
  const m = run.load();
  if (!m || version === streamingVersion(m)) return null;
  return run.storedPlan(version);
}

export function planVersionsOf(run: RunDriver): PlanVersionRow[] | null {
  const m = run.load();
  if (!m) return null;
  const streaming = streamingVersion(m);
  return run.store
    .listPlans()
    .filter((p) => p.version !== streaming)
    .map((p) => ({ ...p, reason: knownReason(p.version) }));
}

export function attemptsOf(run: RunDriver, stepId?: string): Record<string, SqlStorageValue>[] {
  if (!run.store.exists) return [];
  run.upgrade();
  return run.store.attempts.list(stepId);
}
