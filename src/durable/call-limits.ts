/**
 * What one call between the queue consumer and a run's object may carry (RPC: 32 MiB). Outputs and
 * resolved parameters are bounded one by one (value-limits.ts: at most 16 MiB each); these bound a
 * call carrying many of them — reports, begun attempts, continuations — to about
 * {@link CALL_BUDGET} of JSON text past its first item, so none can outgrow the limit and fail: a
 * failed call would be retried, and the steps would re-run or time out.
 */
import type { StepOutcome } from '../engine/machine';
import { jsonText, outputTextLimitError } from '../engine/value-limits';
import type { BeginStep } from './begin-attempt';
import type { Continuation } from './run-requests';

/** JSON text (UTF-16 units, which serialise to at most twice as many bytes) per call, past the first item. */
export const CALL_BUDGET = 4 * 1024 * 1024;

/** Parameters to hand out in one reply: once the budget is spent, no more are taken. */
export class CallBudget {
  #used = 0;
  #items = 0;

  /** Whether another item may still be added. */
  open(): boolean {
    return this.#items === 0 || this.#used < CALL_BUDGET;
  }

  add(length: number): void {
    this.#used += length;
    this.#items += 1;
  }

  /**
   * A begun attempt, or — when the reply is full — word to ask again: the attempt is recorded as
   * begun and proceeds when its message comes back (same attempt, same idempotency key).
   */
  fit(begin: BeginStep): BeginStep {
    if (!begin.proceed) return begin;
    if (!this.open()) return { proceed: false, reason: 'reply full; ask again', retry: true };
    this.add(begin.parameters_length);
    return begin;
  }
}

/**
 * An outcome ready to report, with the length of its JSON: an output over the run's limit becomes the
 * `output_too_large` failure the object would record, so it never travels.
 */
export function reportable(
  stepId: string,
  outcome: StepOutcome,
  maxOutputBytes: number,
): { outcome: StepOutcome; length: number } {
  if (!outcome.success) return { outcome, length: outcome.error.message.length };
  const text = jsonText(outcome.output);
  const error = outputTextLimitError(stepId, text, maxOutputBytes);
  if (!error) return { outcome, length: text.length };
  const failed: StepOutcome = { success: false, error, latency_ms: outcome.latency_ms };
  if (outcome.tokens) failed.tokens = outcome.tokens;
  return { outcome: failed, length: error.message.length };
}

/** Splits items into consecutive groups of about {@link CALL_BUDGET} (an item larger than that alone). */
export function groupsOf<T>(items: readonly T[], length: (item: T) => number): T[][] {
  const groups: T[][] = [];
  let group: T[] = [];
  let used = 0;
  for (const item of items) {
    const n = length(item);
    if (group.length > 0 && used + n > CALL_BUDGET) {
      groups.push(group);
      group = [];
      used = 0;
    }
    group.push(item);
    used += n;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** The continuations a reporting consumer takes back: at most `room`, within one call's budget. */
export class Handoff {
  readonly taken: Continuation[] = [];
  readonly #budget = new CallBudget();

  constructor(private readonly room: number) {}

  /** Whether another continuation may be taken. */
  wants(): boolean {
    return this.taken.length < this.room && this.#budget.open();
  }

  take(c: Continuation): void {
    this.taken.push(c);
    this.#budget.add(c.parameters_length);
  }
}
