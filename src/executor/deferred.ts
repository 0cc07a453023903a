/**
 * A tool whose result comes later: a child run (`agent.dispatch`, `plan.execute`) reports back to its
 * parent when it ends, and `human.input` is answered by a person through `POST /input`. Such a tool
 * returns a marker instead of a result, and the runner leaves the attempt running.
 */
import type { StepOutcome } from './run-step';

export type Deferred =
  { $deferred: 'child_run'; child_run_id: string } | { $deferred: 'input'; prompt: string };

export function deferToChildRun(childRunId: string): Deferred {
  return { $deferred: 'child_run', child_run_id: childRunId };
}

export function deferToPerson(prompt: string): Deferred {
  return { $deferred: 'input', prompt };
}

/** The marker a deferred tool returned, or null for an ordinary outcome. */
export function deferredOf(outcome: StepOutcome): Deferred | null {
  if (!outcome.success) return null;
  const o = outcome.output;
  if (typeof o !== 'object' || o === null || !('$deferred' in o)) return null;
  const kind = o.$deferred;
  return kind === 'child_run' || kind === 'input' ? (o as Deferred) : null;
}
