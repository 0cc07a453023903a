/**
 * A tool whose result comes later: a child run (`agent.dispatch`, `plan.execute`) reports back to its
 * parent when it ends, and `human.input` is answered by a person through `POST /input`. Such a tool
 * returns a marker instead of a result, and the runner leaves the attempt running.
 */
import type { StepOutcome } from './run-step';

export type Deferred =
  { $deferred: 'child_run'; child_run_id: string } | { $deferred: 'input'; prompt: string; schema?: unknown };

export function deferToChildRun(childRunId: string): Deferred {
  return { $deferred: 'child_run', child_run_id: childRunId };
}

/** A question for a person; `schema` (JSON Schema) is what the answer must fit, checked when it comes. */
export function deferToPerson(prompt: string, schema?: unknown): Deferred {
  return schema === undefined ? { $deferred: 'input', prompt } : { $deferred: 'input', prompt, schema };
}

/** The marker a deferred tool returned, or null for an ordinary outcome. */
export function deferredOf(outcome: StepOutcome): Deferred | null {
  if (!outcome.success) return null;
  const o = outcome.output;
  if (typeof o !== 'object' || o === null || !('$deferred' in o)) return null;
  const kind = o.$deferred;
  return kind === 'child_run' || kind === 'input' ? (o as Deferred) : null;
}
