/**
 * The dependency graph of a plan: explicit `dependencies` plus the implicit ones references create
 * (a step reading `{{ steps.x.output }}` depends on x; one reading `{{ state.a }}` depends on every
 * step whose `output_path` writes `state.a` or a path above/below it). Linear in plan size.
 * STUB: signatures are the contract; the implementation is being written.
 */
import type { PlanStep } from './model';
import type { PathSegment, Reference } from './references';

export type PlanGraph = {
  ids: string[];
  index: Map<string, number>;
  /** Per step (same order as `ids`): explicit ∪ implicit dependencies, deduplicated, known ids only. */
  deps: string[][];
  /** Per step: the steps that depend on it. */
  dependents: string[][];
  /** Per step: every reference in its parameters and `when`. */
  refs: Reference[][];
  /** Per step: the state paths its `output_path` writes (success path, then failure path if any). */
  writes: { success: PathSegment[] | null; failure: PathSegment[] | null }[];
};

export function buildGraph(_steps: readonly PlanStep[]): PlanGraph {
  throw new Error('not implemented');
}

/** The first cycle found, as ids with the first repeated at the end (`['a','b','c','a']`), or null. */
export function findCycle(_graph: PlanGraph): string[] | null {
  throw new Error('not implemented');
}
