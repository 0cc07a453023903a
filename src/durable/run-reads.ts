/**
 * Reads of a run that must fit what one call between the object and the Worker carries (32 MiB):
 * snapshots with their values bounded (value-budget.ts), pages of the event log bounded by count and
 * bytes, and one value by reference — where a value a snapshot left out is read.
 */
import type { RunEvent } from '../engine/events';
import { scopeFor } from '../engine/decide';
import { outputRef, varRef, type RunSnapshot } from '../engine/snapshot';
import type { RunState } from '../engine/state';
import type { RunMachine } from '../engine/machine';
import { valueHref, type ElidedValue, type SnapshotBudget } from '../engine/value-budget';
import { bytesOver, utf8Bytes } from '../engine/value-limits';
import { readReference } from '../plan/references';
import { parseReferenceExpression } from '../plan/reference-syntax';
import type { SqlStore } from './sql-store';
import type { RpcResult } from './rpc-result';

const MIB = 1024 * 1024;
/**
 * The plan version still streaming in, if any: stored as it grows (so a restart does not run its steps
 * again) but not a version yet — listing or caching it would show a plan its run has not authored.
 */
export function streamingVersion(m: RunMachine): number | undefined {
  return m.state.streaming ? m.state.plan?.version : undefined;
}

/** Most bytes of values (final output, step results, state) one snapshot carries. */
export const SNAPSHOT_VALUE_BYTES = 8 * MIB;
/** Most bytes of stored event JSON one page of events carries, past its first event. */
export const EVENTS_PAGE_BYTES = 8 * MIB;
/** An event larger than this is sent with its payload left out (a page holds at least one event). */
export const EVENT_ELIDE_BYTES = 24 * MIB;
/** The largest value `readValue` returns. */
export const VALUE_READ_BYTES = 24 * MIB;

/** Most bytes of plan a snapshot carries; a larger plan is a marker pointing at its version. */
export const SNAPSHOT_PLAN_BYTES = 8 * MIB;

/** A snapshot as served: a plan too large to include is a marker (`GET /plans/:version` has it). */
export type ServedSnapshot = Omit<RunSnapshot, 'plan'> & { plan: RunSnapshot['plan'] | ElidedValue };

/** The snapshot with its plan left out when it is larger than {@link SNAPSHOT_PLAN_BYTES}. */
export function servedSnapshot(snap: RunSnapshot, store: SqlStore): ServedSnapshot {
  const plan = snap.plan;
  if (!plan) return snap;
  const bytes = store.planSize(plan.version) ?? utf8Bytes(JSON.stringify(plan));
  if (bytes <= SNAPSHOT_PLAN_BYTES) return snap;
  const href = `/v1/runs/${snap.run_id}/plans/${plan.version}`;
  return { ...snap, plan: { $elided: { bytes, ref: 'plan', href } } };
}

/** The live snapshot's budget: sizes of stored outputs and variables come from the rows. */
export function storeBudget(store: SqlStore, runId: string): SnapshotBudget {
  let outputs: Map<string, number> | null = null;
  let vars: Map<string, number> | null = null;
  const byRef = new Map<string, number>();
  return {
    maxBytes: SNAPSHOT_VALUE_BYTES,
    sizeOf: (ref) => {
      if (outputs === null || vars === null) {
        outputs = store.outputSizes();
        vars = store.varSizes();
        for (const [id, n] of outputs) byRef.set(outputRef(id), n);
        for (const [key, n] of vars) byRef.set(varRef(key), n);
      }
      return byRef.get(ref);
    },
    href: (ref) => valueHref(runId, ref),
  };
}

/** A replayed snapshot's budget: its values are in memory, measured as they are taken. */
export function memoryBudget(runId: string): SnapshotBudget {
  return { maxBytes: SNAPSHOT_VALUE_BYTES, href: (ref) => valueHref(runId, ref) };
}

/** A page of `GET /v1/runs/:id/events`: `next_after` is the `after` of the next page. */
export type EventsPage = { events: RunEvent[]; next_after: number; has_more: boolean };

/** What an event too large to send carries instead of its payload. */
export type ElidedPayload = { $elided: { bytes: number; reason: string } };

export function eventsPage(store: SqlStore, after: number, limit: number): EventsPage {
  const page = store.events.page(after, limit, EVENTS_PAGE_BYTES);
  const events = page.events.map((e, i) => {
    const bytes = page.sizes[i]!;
    if (bytes <= EVENT_ELIDE_BYTES) return e;
    const reason = `event over ${EVENT_ELIDE_BYTES} bytes; its values can be read with /values?ref=`;
    return { ...e, payload: { $elided: { bytes, reason } } } as unknown as RunEvent;
  });
  return { events, next_after: events.at(-1)?.seq ?? after, has_more: page.has_more };
}

/**
 * One value by reference: `steps.<id>.output[...]`, `state.<key>[...]`, `input[...]` (the syntax a
 * plan's parameters use), or `final_output`.
 */
export function readValue(
  state: RunState,
  store: SqlStore,
  ref: string,
): RpcResult<{ ref: string; value: unknown }> {
  let found: { found: boolean; value?: unknown };
  if (ref === 'final_output') {
    found = { found: true, value: state.final_output };
  } else {
    const parsed = parseReferenceExpression(ref);
    if (!parsed.ok)
      return { ok: false, error: { code: 'invalid_request', message: `ref: ${parsed.message}` } };
    found = readReference(parsed.ref, scopeFor(state, store, [parsed.ref]));
  }
  if (!found.found)
    return { ok: false, error: { code: 'value_not_found', message: `${ref} has no value in this run` } };
  const bytes = bytesOver(found.value, VALUE_READ_BYTES);
  if (bytes !== null) {
    const message = `${ref} takes ${bytes} bytes, over the ${VALUE_READ_BYTES} one read returns; read a part of it (e.g. ${ref === 'final_output' ? 'steps.<id>.output' : `${ref}.<field>`})`;
    return { ok: false, error: { code: 'value_too_large', message } };
  }
  return { ok: true, value: { ref, value: found.value ?? null } };
}
