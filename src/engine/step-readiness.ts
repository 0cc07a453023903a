/**
 * The fold's step bookkeeping: which steps have settled, how many dependencies each still waits for,
 * and which become ready; steps a retry re-opens; and which steps an event changed (`dirty`, what is
 * persisted). Only the fold calls these: they change the state in place.
 */
import { teaMetaOf } from '../plan/tea-meta';
import type { RunState, StepRuntime } from './state';

/** A dependency is settled once it can no longer change: completed, skipped or failed. */
export function isSettled(rt: StepRuntime): boolean {
  return rt.status === 'completed' || rt.status === 'skipped' || rt.status === 'failed';
}

/** The runtime of the step an event names; an event naming a step the plan lacks throws. */
export function stepOf(state: RunState, id: string): StepRuntime {
  const rt = state.steps.get(id);
  if (!rt) throw new Error(`Event names step "${id}", which is not in plan ${state.plan?.id ?? '(none)'}`);
  return rt;
}

/** Marks a step's runtime changed, so the owner persists it with the event. */
export function touch(state: RunState, id: string): void {
  state.dirty.add(id);
}

/** Tells the dependents of a step that settled; the ones with nothing left to wait for become ready. */
export function settle(state: RunState, id: string): void {
  const graph = state.graph!;
  const idx = graph.index.get(id)!;
  for (const dep of graph.dependents[idx] ?? []) {
    const rt = state.steps.get(dep)!;
    rt.waiting -= 1;
    touch(state, dep);
    if (rt.waiting === 0 && (rt.status === 'blocked' || rt.status === 'revised')) makeReady(state, dep, rt);
  }
}

function makeReady(state: RunState, id: string, rt: StepRuntime): void {
  if (rt.status === 'blocked') rt.status = 'pending';
  state.ready.push(state.graph!.index.get(id)!);
}

/** Recomputes `waiting` for the given steps; those with nothing to wait for become ready. */
export function recountWaiting(state: RunState, ids: readonly string[]): void {
  const graph = state.graph!;
  // A TEA graph run's nodes wait for navigation to enter them (NodeEntered), not for dependencies.
  const navigated = teaMetaOf(state.plan)?.graph !== undefined;
  for (const id of ids) {
    const rt = state.steps.get(id)!;
    if (isSettled(rt) || rt.status === 'running') continue;
    if (navigated && rt.status === 'blocked') continue;
    let waiting = 0;
    for (const dep of graph.deps[graph.index.get(id)!] ?? []) {
      if (!isSettled(state.steps.get(dep)!)) waiting += 1;
    }
    rt.waiting = waiting;
    if (rt.retry_at === null && waiting === 0) makeReady(state, id, rt);
    else if (rt.status === 'pending' && rt.retry_at === null) rt.status = 'blocked';
  }
}

export function resume(state: RunState, ids: readonly string[]): void {
  const navigated = teaMetaOf(state.plan)?.graph !== undefined;
  for (const id of ids) {
    const rt = stepOf(state, id);
    state.unhandled_failures.delete(id);
    // A graph run's node that was entered runs again; one never entered waits for navigation.
    rt.status = navigated && rt.visit > 0 ? 'pending' : 'blocked';
    rt.retries_used = 0;
    rt.fallback_used = false;
    rt.on_fallback = false;
    rt.handled = false;
    rt.error = null;
    rt.skip_reason = null;
    rt.finished_at = null;
    rt.retry_at = null;
    touch(state, id);
  }
  recountWaiting(state, ids);
}
