/**
 * The dependency graph of a plan: explicit `dependencies` plus the implicit ones references create
 * (a step reading `{{ steps.x.output }}` depends on x; one reading `{{ state.a }}` depends on every
 * step whose `output_path` writes `state.a` or a path above/below it). Linear in plan size: state
 * paths go through a trie, never a pairwise comparison, and nothing recurses per step, so a
 * 100k-step chain is fine.
 */
import { parseCondition } from './conditions';
import type { PlanStep } from './model';
import { clearArray, collectReferencesInto, parseOutputPath } from './references';
import type { PathSegment, Reference } from './references';
import { NO_STEPS, StateIndex } from './state-index';
import type { StateWriter } from './state-index';

export { findCycle, findCycles, topologicalOrder } from './cycles';
export { StateIndex, type StateWriter } from './state-index';

/** Something in a step that does not parse: a reference, its `output_path` or its `when`. */
export type StepProblem = { message: string; path: PathSegment[] };

export type PlanGraph = {
  ids: string[];
  /** Step id → position in `ids` (the first step, when an id is duplicated). */
  index: Map<string, number>;
  /** Per step (same order as `ids`): explicit ∪ implicit dependencies, deduplicated, known ids only, in plan order. */
  deps: string[][];
  /** `deps` as positions in `ids`. */
  depIndex: number[][];
  /** Per step: the steps that depend on it. */
  dependents: string[][];
  /**
   * Per step: every reference in its parameters, fallback parameters and `when`. Each one's `at`
   * is its place in the step (`['parameters', 'url']`, `['fallback_action', 'parameters', 'q']`, `['when']`).
   */
  refs: Reference[][];
  /** Per step: the state paths its `output_path` writes (success path, then failure path if any). */
  writes: { success: PathSegment[] | null; failure: PathSegment[] | null }[];
  /** Per step: references, `output_path` and `when` that do not parse. */
  problems: StepProblem[][];
  /** Per step: ids named by `dependencies` or step references that are not in the plan. */
  missing: string[][];
  /** Positions of steps whose id an earlier step already has. */
  duplicates: number[];
  /** Who writes which state path. */
  state: StateIndex;
};

type StepAnalysis = {
  refs: Reference[];
  problems: StepProblem[];
  writes: { success: PathSegment[] | null; failure: PathSegment[] | null };
};

const PARAMETERS: readonly PathSegment[] = ['parameters'];
const FALLBACK_PARAMETERS: readonly PathSegment[] = ['fallback_action', 'parameters'];

/** The references a step reads, what it writes, and what in it does not parse. */
export function analyzeStep(step: PlanStep): StepAnalysis {
  const refs: Reference[] = [];
  const problems: StepProblem[] = [];
  const writes = analyzeInto(step, refs, problems);
  return { refs, problems, writes };
}

function analyzeInto(step: PlanStep, refs: Reference[], problems: StepProblem[]): StepAnalysis['writes'] {
  collectReferencesInto(step.parameters, PARAMETERS, refs, problems);
  const fb = step.fallback_action;
  if (fb != null && typeof fb === 'object' && fb.parameters !== undefined) {
    collectReferencesInto(fb.parameters, FALLBACK_PARAMETERS, refs, problems);
  }
  if (step.when !== undefined) {
    const cond = parseCondition(step.when);
    if (cond.ok) {
      for (const r of cond.refs) refs.push({ ...r, at: ['when'], whole: false });
    } else problems.push({ message: cond.message, path: ['when'] });
  }
  if (step.output_path === undefined) return NO_WRITES;
  const out = parseOutputPath(step.output_path);
  if (out.ok) return out;
  problems.push({ message: out.message, path: ['output_path'] });
  return NO_WRITES;
}

const NO_WRITES: StepAnalysis['writes'] = Object.freeze({ success: null, failure: null });
const NO_PROBLEMS: readonly StepProblem[] = Object.freeze([]);

/**
 * Watches references as the graph resolves them, so a caller (validation's type check) needs no
 * second lookup: `target` is the producing step of a step reference (-1 when unknown); for a
 * state reference, `writers` write the path or above it and `below` write parts of it. The arrays
 * are reused: read them during the call only.
 */
export type ReferenceVisitor = (
  step: number,
  ref: Reference,
  target: number,
  writers: readonly StateWriter[],
  below: readonly number[],
) => void;

const NO_WRITERS: readonly StateWriter[] = Object.freeze([]);

/**
 * Builds the dependency graph. Unknown ids are left out of `deps` and listed in `missing`
 * (validation reports them). A step never depends on itself through its own writes (`state.n`
 * read and written by one step is an update, not a cycle); a step naming itself is a cycle.
 * @example buildGraph(plan.steps).deps[1] // ['search']
 */
export function buildGraph(steps: readonly PlanStep[], visit?: ReferenceVisitor): PlanGraph {
  const n = steps.length;
  const ids: string[] = [];
  const index = new Map<string, number>();
  const refs: Reference[][] = [];
  const writes: PlanGraph['writes'] = [];
  const problems: StepProblem[][] = [];
  const state = new StateIndex();
  let scratch: StepProblem[] = [];
  // Backwards, so the first of duplicated ids is the one that stays (one map operation per step).
  for (let i = n - 1; i >= 0; i--) index.set(steps[i]!.id, i);
  const duplicates: number[] = [];
  if (index.size < n) for (let i = 0; i < n; i++) if (index.get(steps[i]!.id) !== i) duplicates.push(i);
  // Per-step lists are built in scratch arrays and copied out at their exact size (see parsePathTail).
  const refScratch: Reference[] = [];
  for (let i = 0; i < n; i++) {
    const step = steps[i]!;
    ids.push(step.id);
    clearArray(refScratch);
    const w = analyzeInto(step, refScratch, scratch);
    refs.push(refScratch.slice());
    writes.push(w);
    if (scratch.length === 0) problems.push(NO_PROBLEMS as StepProblem[]);
    else {
      problems.push(scratch);
      scratch = [];
    }
    if (w.success) state.add(i, w.success, 'success');
    if (w.failure) state.add(i, w.failure, 'failure');
  }

  const depIndex: number[][] = [];
  const missing: string[][] = [];
  const seen = new Uint32Array(n); // seen[j] === i + 1: j is already a dependency of i
  const writers: StateWriter[] = [];
  const mine: number[] = [];
  let unknown: string[] | null = null;
  const depend = (i: number, j: number): void => {
    if (seen[j] !== i + 1) {
      seen[j] = i + 1;
      mine.push(j);
    }
  };
  const named = (i: number, id: string): number => {
    const j = index.get(id);
    if (j !== undefined) depend(i, j);
    else if (unknown === null) unknown = [id];
    else if (!unknown.includes(id)) unknown.push(id);
    return j ?? -1;
  };
  for (let i = 0; i < n; i++) {
    clearArray(mine);
    unknown = null;
    // Indexed loops throughout: `for…of` allocates an iterator each time, 100k times here.
    const explicit = steps[i]!.dependencies;
    for (let k = 0; k < explicit.length; k++) named(i, explicit[k]!);
    const stepRefs = refs[i]!;
    for (let k = 0; k < stepRefs.length; k++) {
      const r = stepRefs[k]!;
      if (r.source === 'steps') {
        const j = named(i, r.stepId ?? '');
        if (visit) visit(i, r, j, NO_WRITERS, NO_STEPS);
      } else if (r.source === 'state') {
        clearArray(writers);
        const below = state.lookup(r.path, writers);
        for (let w = 0; w < writers.length; w++) if (writers[w]!.step !== i) depend(i, writers[w]!.step);
        for (let b = 0; b < below.length; b++) if (below[b] !== i) depend(i, below[b]!);
        if (visit) visit(i, r, -1, writers, below);
      } else if (visit) {
        visit(i, r, -1, NO_WRITERS, NO_STEPS);
      }
    }
    if (mine.length > 1) mine.sort(byNumber);
    depIndex.push(mine.slice());
    missing.push(unknown ?? (NO_IDS as string[]));
  }
  return new Graph({ ids, index, depIndex, refs, writes, problems, missing, duplicates, state });
}

const NO_IDS: readonly string[] = Object.freeze([]);
const byNumber = (a: number, b: number): number => a - b;

/** `deps` and `dependents` as ids are built on first use: validation only needs `depIndex`. */
class Graph implements PlanGraph {
  readonly ids: string[];
  readonly index: Map<string, number>;
  readonly depIndex: number[][];
  readonly refs: Reference[][];
  readonly writes: PlanGraph['writes'];
  readonly problems: StepProblem[][];
  readonly missing: string[][];
  readonly duplicates: number[];
  readonly state: StateIndex;
  #deps: string[][] | null = null;
  #dependents: string[][] | null = null;

  constructor(parts: Omit<PlanGraph, 'deps' | 'dependents'>) {
    this.ids = parts.ids;
    this.index = parts.index;
    this.depIndex = parts.depIndex;
    this.refs = parts.refs;
    this.writes = parts.writes;
    this.problems = parts.problems;
    this.missing = parts.missing;
    this.duplicates = parts.duplicates;
    this.state = parts.state;
  }

  get deps(): string[][] {
    this.#deps ??= this.depIndex.map((list) => list.map((j) => this.ids[j]!));
    return this.#deps;
  }

  get dependents(): string[][] {
    if (this.#dependents === null) {
      const out: string[][] = Array.from({ length: this.ids.length }, () => []);
      for (let i = 0; i < this.depIndex.length; i++) {
        const deps = this.depIndex[i]!;
        for (let k = 0; k < deps.length; k++) out[deps[k]!]!.push(this.ids[i]!);
      }
      this.#dependents = out;
    }
    return this.#dependents;
  }
}
