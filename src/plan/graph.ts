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

/** One `output_path` side covering a read path: the writer's position, branch and path length. */
export type StateWriter = { step: number; branch: 'success' | 'failure'; length: number };

type TrieNode = {
  children: Map<string, TrieNode> | null;
  writers: StateWriter[] | null;
  below: number[] | null;
};

const NO_STEPS: readonly number[] = Object.freeze([]);

/** A trie of written state paths; answers "who writes P, above P or below P" in O(|P| + answer). */
export class StateIndex {
  readonly #root: TrieNode = { children: null, writers: null, below: null };

  add(step: number, path: readonly PathSegment[], branch: 'success' | 'failure'): void {
    let node = this.#root;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i]!;
      node.children ??= new Map();
      const key = typeof seg === 'string' ? seg : String(seg);
      let next = node.children.get(key);
      if (next === undefined) {
        next = { children: null, writers: null, below: null };
        node.children.set(key, next);
      }
      node = next;
    }
    const w: StateWriter = { step, branch, length: path.length };
    if (node.writers === null) node.writers = [w];
    else node.writers.push(w);
  }

  /**
   * Writers whose path equals `path` or is a prefix of it (they write `path` or something holding
   * it), appended to `out` (a fresh array when not given).
   */
  above(path: readonly PathSegment[], out: StateWriter[] = []): StateWriter[] {
    this.lookup(path, out);
    return out;
  }

  /** Steps writing a path strictly below `path` (parts of what `path` reads). */
  below(path: readonly PathSegment[]): readonly number[] {
    return this.lookup(path, null);
  }

  /** {@link above} into `out` (when given) and {@link below} as the result, in one walk. */
  lookup(path: readonly PathSegment[], out: StateWriter[] | null): readonly number[] {
    let node: TrieNode | undefined = this.#root;
    for (let i = 0; ; i++) {
      const here = node.writers;
      if (out !== null && here !== null) for (let k = 0; k < here.length; k++) out.push(here[k]!);
      if (i === path.length) break;
      const seg = path[i]!;
      node = node.children?.get(typeof seg === 'string' ? seg : String(seg));
      if (node === undefined) return NO_STEPS;
    }
    if (node.children === null) return NO_STEPS;
    node.below ??= collectBelow(node);
    return node.below;
  }
}

function collectBelow(start: TrieNode): number[] {
  const out: number[] = [];
  const stack: TrieNode[] = [];
  for (const child of start.children?.values() ?? []) stack.push(child);
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.writers !== null) for (const w of node.writers) out.push(w.step);
    for (const child of node.children?.values() ?? []) stack.push(child);
  }
  return out;
}

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

/**
 * Every cycle, one per strongly connected component (so two separate loops are both reported),
 * each as ids with the first repeated at the end. A cycle starts at its earliest step in plan order
 * and follows dependencies: `['a','b','a']` means a depends on b and b on a. Iterative Tarjan, then
 * a breadth-first search inside each component for its shortest cycle through that step.
 */
export function findCycles(graph: PlanGraph): string[][] {
  const adj = graph.depIndex;
  const n = adj.length;
  const order = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack = new Int32Array(n);
  const callNode = new Int32Array(n);
  const callEdge = new Int32Array(n);
  const component = new Int32Array(n).fill(-1);
  const starts: number[] = [];
  let sp = 0;
  let csp = 0;
  let counter = 0;
  const enter = (v: number): void => {
    order[v] = low[v] = counter++;
    stack[sp++] = v;
    onStack[v] = 1;
    callNode[csp] = v;
    callEdge[csp] = 0;
    csp++;
  };

  for (let s = 0; s < n; s++) {
    if (order[s] !== -1) continue;
    enter(s);
    while (csp > 0) {
      const v = callNode[csp - 1]!;
      const edges = adj[v]!;
      const e = callEdge[csp - 1]!;
      if (e < edges.length) {
        callEdge[csp - 1] = e + 1;
        const w = edges[e]!;
        if (order[w] === -1) enter(w);
        else if (onStack[w] === 1 && order[w]! < low[v]!) low[v] = order[w]!;
        continue;
      }
      csp--;
      if (csp > 0) {
        const u = callNode[csp - 1]!;
        if (low[v]! < low[u]!) low[u] = low[v]!;
      }
      if (low[v] !== order[v]) continue;
      let first = v;
      let size = 0;
      let w: number;
      do {
        w = stack[--sp]!;
        onStack[w] = 0;
        component[w] = v;
        if (w < first) first = w;
        size++;
      } while (w !== v);
      if (size > 1 || adj[v]!.includes(v)) starts.push(first);
    }
  }

  starts.sort((a, b) => a - b);
  const parent = new Int32Array(n).fill(-1);
  const cycles: string[][] = [];
  for (const start of starts) {
    const comp = component[start]!;
    const queue: number[] = [start];
    let end = -1;
    for (let q = 0; q < queue.length && end < 0; q++) {
      const u = queue[q]!;
      const edges = adj[u]!;
      for (let k = 0; k < edges.length; k++) {
        const w = edges[k]!;
        if (component[w] !== comp) continue;
        if (w === start) {
          end = u;
          break;
        }
        if (parent[w] === -1) {
          parent[w] = u;
          queue.push(w);
        }
      }
    }
    const path: number[] = [];
    for (let u = end; u !== start; u = parent[u]!) path.push(u);
    path.push(start);
    path.reverse();
    path.push(start);
    cycles.push(path.map((i) => graph.ids[i]!));
    for (let q = 0; q < queue.length; q++) parent[queue[q]!] = -1;
  }
  return cycles;
}

/** The first cycle found, as ids with the first repeated at the end (`['a','b','c','a']`), or null. */
export function findCycle(graph: PlanGraph): string[] | null {
  return findCycles(graph)[0] ?? null;
}

/**
 * Step positions in an order where each comes after its dependencies (Kahn's algorithm). Steps on
 * or behind a cycle are left out, so `complete` is false for a cyclic graph.
 */
export function topologicalOrder(graph: PlanGraph): { order: number[]; complete: boolean } {
  const adj = graph.depIndex;
  const n = adj.length;
  // Dependents in one flat array (CSR): no array per step on 100k-step plans.
  const waiting = new Int32Array(n);
  const start = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const deps = adj[i]!;
    waiting[i] = deps.length;
    for (let k = 0; k < deps.length; k++) start[deps[k]! + 1]!++;
  }
  for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
  const fill = start.slice(0, n);
  const dependents = new Int32Array(start[n]!);
  for (let i = 0; i < n; i++) {
    const deps = adj[i]!;
    for (let k = 0; k < deps.length; k++) dependents[fill[deps[k]!]!++] = i;
  }

  const order: number[] = [];
  for (let i = 0; i < n; i++) if (waiting[i] === 0) order.push(i);
  for (let q = 0; q < order.length; q++) {
    const u = order[q]!;
    for (let e = start[u]!; e < start[u + 1]!; e++) {
      const d = dependents[e]!;
      if (--waiting[d]! === 0) order.push(d);
    }
  }
  return { order, complete: order.length === n };
}
