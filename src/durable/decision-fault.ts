/**
 * A decision of a run's object that threw: the engine's code met something it could not handle (a
 * bug, or a plan that runs it out of stack) while deciding on an input. Told apart from a failed
 * write, which the transaction's rollback covers and a later try may get past: the same decision on
 * the same state throws the same way every time, so the object must not take it again on every wake.
 * What the run does then is run-driver.ts's: a new run's create is undone, a caller's request is
 * answered `500 decision_failed` naming the error (the run left as it was), and the run's own work — a
 * step result, a deadline, a side-work answer — fails the run with that error.
 */
import type { MachineInput } from '../engine/machine';

/** The longest part of a thrown message a fault repeats (a message may carry a whole value). */
const MESSAGE_CHARS = 300;

export class DecisionFault extends Error {
  override readonly name = 'DecisionFault';
  constructor(cause: unknown, inputs: readonly MachineInput[]) {
    const on = [...new Set(inputs.map((i) => i.type))].join(', ') || 'its own work';
    super(`The run's decision on ${on} threw ${thrown(cause)}`, { cause });
  }
}

/**
 * A thrown value as `Name: message`, the message cut short.
 * @example thrown(new RangeError('Maximum call stack size exceeded')) // 'RangeError: Maximum call stack size exceeded'
 */
export function thrown(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.length > MESSAGE_CHARS ? `${text.slice(0, MESSAGE_CHARS - 1)}…` : text;
}
