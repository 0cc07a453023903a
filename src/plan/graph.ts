/**
 * The dependency graph of a plan: explicit `dependencies` plus the implicit ones references create
 * (a step reading `{{ steps.x.output }}` depends on x; one reading `{{ state.a }}` depends on every
 * step whose `output_path` writes `state.a` or a path above/below it). Linear in plan size: state
 * paths go through a trie, never a pairwise comparison, and nothing recurses per step, so a
 * 100k-step chain is fine.
 *
 * A root writer (`output_path: "state"`, merging its result's keys into state) may write any path,
 * and which keys only shows at run time. Plan order settles it: a step reading state depends on
 * the last root writer listed before it, and each root writer on the one before it, so root merges
 * apply in plan order and a reader waits for every merge above it (transitively: one edge each,
 * which keeps the graph linear). A root writer listed after a reader is not waited for.
 */
import { parseCondition } from './conditions';
import { IdTable } from './id-table';
import type { PlanStep } from './model';
import { clearArray, collectReferencesInto, parseOutputPath } from './references';
import type { PathSegment, Reference } from './references';
import { NO_STEPS, StateIndex } from './state-index';
import type { StateWriter } from './state-index';

export { findCycle, findCycles, orderOf, topologicalOrder } from './cycles';
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
   * Built on first use (validation resolves references while parsing and keeps none).
   */
  refs: Reference[][];
  /** Step i's references, parsed again when `refs` has not been built (for a message, say). */
  refsOf(i: number): Reference[];
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
  readsInto(step, refs, problems);
  const writes = writesOf(step);
  if (typeof writes === 'string') problems.push({ message: writes, path: ['output_path'] });
  return { refs, problems, writes: typeof writes === 'string' ? NO_WRITES : writes };
}

/** Appends the references in a step's parameters, fallback parameters and `when`. */
function readsInto(step: PlanStep, refs: Reference[], problems: StepProblem[]): void {
  collectReferencesInto(step.parameters, PARAMETERS, refs, problems);
  const fb = step.fallback_action;
  if (fb != null && typeof fb === 'object' && fb.parameters !== undefined) {
    collectReferencesInto(fb.parameters, FALLBACK_PARAMETERS, refs, problems);
  }
  if (step.when !== undefined) {
    const cond = parseCondition(step.when);
    if (cond.ok) {
      for (let k = 0; k < cond.refs.length; k++) refs.push({ ...cond.refs[k]!, at: WHEN, whole: false });
    } else problems.push({ message: cond.message, path: ['when'] });
  }
}

/** What a step's `output_path` writes, or why it does not parse. */
function writesOf(step: PlanStep): StepAnalysis['writes'] | string {
  if (step.output_path === undefined) return NO_WRITES;
  const out = parseOutputPath(step.output_path);
  return out.ok ? out : out.message;
}

const WHEN: PathSegment[] = Object.freeze(['when']) as PathSegment[];
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
  const ids: string[] = new Array<string>(n);
  for (let i = 0; i < n; i++) ids[i] = steps[i]!.id;
  const table = new IdTable(ids);
  const problems: StepProblem[][] = [];
  const state = new StateIndex(n);

  // Every write is known before any read is resolved. The parsed paths are not kept (the trie has
  // what validation needs; `writes` parses them again if asked). Root writers stay out of the trie
  // (every lookup would return them all); `merges` marks them instead.
  const badOutput = new Map<number, string>();
  let merges: Uint8Array | null = null;
  for (let i = 0; i < n; i++) {
    const w = writesOf(steps[i]!);
    if (typeof w === 'string') badOutput.set(i, w);
    else {
      if (w.success?.length === 0) (merges ??= new Uint8Array(n))[i] = 1;
      else if (w.success) state.add(i, w.success, 'success');
      if (w.failure) state.add(i, w.failure, 'failure');
    }
  }

  // Reads are parsed, resolved and shown to the visitor one step at a time, then dropped: on a
  // 100k-step plan, keeping them alive through validation is most of the garbage collector's work.
  const depIndex: number[][] = [];
  const missing: string[][] = [];
  const seen = new Uint32Array(n); // seen[j] === i + 1: j is already a dependency of i
  const refs: Reference[] = []; // scratch: emptied per step, capacity kept (see clearArray)
  const writers: StateWriter[] = [];
  const mine: number[] = [];
  let scratch: StepProblem[] = [];
  let unknown: string[] | null = null;
  /** The last root writer before step i (-1 for none), as one more writer of every state path. */
  let lastMerge = -1;
  const merged: StateWriter = { step: -1, branch: 'success', length: 0 };
  const depend = (i: number, j: number): void => {
    if (seen[j] !== i + 1) {
      seen[j] = i + 1;
      mine.push(j);
    }
  };
  const named = (i: number, id: string): number => {
    const j = table.get(id);
    if (j >= 0) depend(i, j);
    else if (unknown === null) unknown = [id];
    else if (!unknown.includes(id)) unknown.push(id);
    return j;
  };
  for (let i = 0; i < n; i++) {
    const step = steps[i]!;
    clearArray(mine);
    clearArray(refs);
    unknown = null;
    readsInto(step, refs, scratch);
    const bad = badOutput.size > 0 ? badOutput.get(i) : undefined;
    if (bad !== undefined) scratch.push({ message: bad, path: ['output_path'] });
    if (scratch.length === 0) problems.push(NO_PROBLEMS as StepProblem[]);
    else {
      problems.push(scratch);
      scratch = [];
    }
    // Indexed loops throughout: `for…of` allocates an iterator each time, 100k times here.
    const explicit = step.dependencies;
    for (let k = 0; k < explicit.length; k++) named(i, explicit[k]!);
    const isMerge = merges !== null && merges[i] === 1;
    if (isMerge && lastMerge >= 0) depend(i, lastMerge);
    for (let k = 0; k < refs.length; k++) {
      const r = refs[k]!;
      if (r.source === 'steps') {
        const j = named(i, r.stepId ?? '');
        if (visit) visit(i, r, j, NO_WRITERS, NO_STEPS);
      } else if (r.source === 'state') {
        clearArray(writers);
        if (lastMerge >= 0) {
          depend(i, lastMerge);
          merged.step = lastMerge;
          writers.push(merged);
        }
        const below = state.lookup(r.path, writers);
        for (let w = 0; w < writers.length; w++) if (writers[w]!.step !== i) depend(i, writers[w]!.step);
        for (let b = 0; b < below.length; b++) if (below[b] !== i) depend(i, below[b]!);
        if (visit) visit(i, r, -1, writers, below);
      } else if (visit) {
        visit(i, r, -1, NO_WRITERS, NO_STEPS);
      }
    }
    if (mine.length > 1) sortSmall(mine);
    depIndex.push(mine.slice());
    missing.push(unknown ?? (NO_IDS as string[]));
    if (isMerge) lastMerge = i;
  }
  return new Graph({ steps, ids, depIndex, problems, missing, duplicates: table.duplicates, state });
}

const NO_IDS: readonly string[] = Object.freeze([]);

function readsOf(step: PlanStep): Reference[] {
  const refs: Reference[] = [];
  readsInto(step, refs, []);
  return refs;
}

/**
 * Sorts numbers in place. Dependency lists are short, and `Array.prototype.sort` allocates ~1 KB
 * of work space per call — on a 100k-step plan, more garbage than the graph itself.
 */
function sortSmall(a: number[]): void {
  if (a.length > 32) {
    a.sort((x, y) => x - y);
    return;
  }
  for (let i = 1; i < a.length; i++) {
    const v = a[i]!;
    let j = i - 1;
    while (j >= 0 && a[j]! > v) {
      a[j + 1] = a[j]!;
      j--;
    }
    a[j + 1] = v;
  }
}

/**
 * `index`, `writes`, `refs`, `deps` and `dependents` are built on first use: validation needs none
 * of them.
 */
class Graph implements PlanGraph {
  readonly ids: string[];
  readonly depIndex: number[][];
  readonly problems: StepProblem[][];
  readonly missing: string[][];
  readonly duplicates: number[];
  readonly state: StateIndex;
  readonly #steps: readonly PlanStep[];
  #index: Map<string, number> | null = null;
  #writes: PlanGraph['writes'] | null = null;
  #refs: Reference[][] | null = null;
  #deps: string[][] | null = null;
  #dependents: string[][] | null = null;

  constructor(
    parts: Omit<PlanGraph, 'index' | 'writes' | 'deps' | 'dependents' | 'refs' | 'refsOf'> & {
      steps: readonly PlanStep[];
    },
  ) {
    this.ids = parts.ids;
    this.depIndex = parts.depIndex;
    this.problems = parts.problems;
    this.missing = parts.missing;
    this.duplicates = parts.duplicates;
    this.state = parts.state;
    this.#steps = parts.steps;
  }

  get index(): Map<string, number> {
    if (this.#index === null) {
      const index = new Map<string, number>();
      // Backwards, so the first of duplicated ids is the one that stays.
      for (let i = this.ids.length - 1; i >= 0; i--) index.set(this.ids[i]!, i);
      this.#index = index;
    }
    return this.#index;
  }

  get writes(): PlanGraph['writes'] {
    this.#writes ??= this.#steps.map((step) => {
      const w = writesOf(step);
      return typeof w === 'string' ? NO_WRITES : w;
    });
    return this.#writes;
  }

  get refs(): Reference[][] {
    this.#refs ??= this.#steps.map((step) => readsOf(step));
    return this.#refs;
  }

  refsOf(i: number): Reference[] {
    const step = this.#steps[i];
    return this.#refs?.[i] ?? (step ? readsOf(step) : []);
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
