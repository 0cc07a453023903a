/**
 * `when` conditions over state (SPEC §2). A small expression language, no eval.
 * STUB: signatures are the contract; the implementation is being written.
 */
import type { RefScope, Reference } from './references';

export type ConditionParse = { ok: true; refs: Reference[] } | { ok: false; message: string };

/** Parses a condition, returning the references it reads (for implicit dependencies) or why it is bad. */
export function parseCondition(_expr: string): ConditionParse {
  throw new Error('not implemented');
}

/** Evaluates a condition; a path that was never written reads as `undefined`. */
export function evaluateCondition(_expr: string, _scope: RefScope): boolean {
  throw new Error('not implemented');
}
