/**
 * Questions a run has not asked yet. A run waits on one question at a time (`awaiting_input`), so a
 * `human.input` attempt that comes to ask while another question is open is not recorded: it is asked
 * again once the run is `running` — every running question step of a running run is one nobody was
 * asked, since an asked one would keep the run waiting. Found so, it survives a crash as well as the
 * answer that frees the run.
 */
import { actionFor, stepDef } from '../engine/step-definition';
import type { RunState } from '../engine/state';

/** The tool that asks a person (runtime-tools.ts). */
const ASKS = 'human.input';

/** Whether step `id` (its fallback, when it runs that) asks a person a question. */
export function asksQuestion(state: RunState, id: string): boolean {
  const rt = state.steps.get(id);
  return rt !== undefined && actionFor(stepDef(state, id), rt.on_fallback).action === ASKS;
}

/** Whether step `id` is running a question attempt the run has not asked. */
export function unasked(state: RunState, id: string): boolean {
  return state.status === 'running' && state.steps.get(id)?.status === 'running' && asksQuestion(state, id);
}
