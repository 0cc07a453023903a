/**
 * Who writes which state path: a trie of `output_path`s that answers "who writes P, above P or
 * below P" in O(|P| + answer), so state-path dependencies never need a pairwise comparison.
 *
 * Laid out for plans with a hundred thousand writers: nodes are numbers, their fields live in
 * typed arrays, and every edge (parent, segment) → child sits in one open-addressing table. The
 * earlier trie of objects with a `Map` per node, probed with freshly parsed segments, took about a
 * quarter of validating a 100k-step plan; this leaves the garbage collector one string per node.
 */
import { hashString, tableSize } from './id-table';
import type { PathSegment } from './references';

/**
 * One `output_path` side covering a read path: the writer's position, branch and path length
 * (0 for a root writer, `output_path: "state"`, which the graph adds itself: see graph.ts).
 */
export type StateWriter = { step: number; branch: 'success' | 'failure'; length: number };

export const NO_STEPS: readonly number[] = Object.freeze([]);

const ROOT = 0;
const NONE = -1;

/** A trie of written state paths; answers "who writes P, above P or below P" in O(|P| + answer). */
export class StateIndex {
  #count = 1;
  #segment: string[] = [''];
  #parent: Int32Array<ArrayBuffer>;
  #firstChild: Int32Array<ArrayBuffer>;
  #lastChild: Int32Array<ArrayBuffer>;
  #nextSibling: Int32Array<ArrayBuffer>;
  /** The node's first writer inline (step, or NONE); further writers in `#more`. */
  #writerStep: Int32Array<ArrayBuffer>;
  #writerLength: Int32Array<ArrayBuffer>;
  #writerFailure: Uint8Array<ArrayBuffer>;
  /** The child a lookup last went to, per node (see {@link #child}). */
  #recent: Int32Array<ArrayBuffer>;
  #more: Map<number, StateWriter[]> | null = null;
  /** Answers of {@link below} per node, computed on first use. */
  #below: Map<number, readonly number[]> | null = null;
  /** Edges as triples (hash, parent, child), so one cache line answers most probes; child 0 (the root) marks an empty slot. */
  #edges: Int32Array<ArrayBuffer>;
  #edgeCount = 0;

  /** `expected`: about how many paths will be added (a plan's step count), to size the tables once. */
  constructor(expected = 0) {
    const size = Math.max(64, expected + 1);
    this.#parent = new Int32Array(size).fill(NONE);
    this.#firstChild = new Int32Array(size).fill(NONE);
    this.#lastChild = new Int32Array(size).fill(NONE);
    this.#nextSibling = new Int32Array(size).fill(NONE);
    this.#writerStep = new Int32Array(size).fill(NONE);
    this.#writerLength = new Int32Array(size);
    this.#writerFailure = new Uint8Array(size);
    this.#recent = new Int32Array(size).fill(NONE);
    this.#edges = new Int32Array(tableSize(expected) * 3);
  }

  add(step: number, path: readonly PathSegment[], branch: 'success' | 'failure'): void {
    let node = ROOT;
    for (let i = 0; i < path.length; i++) node = this.#child(node, keyOf(path[i]!), true);
    this.#below = null;
    if (this.#writerStep[node] === NONE) {
      this.#writerStep[node] = step;
      this.#writerLength[node] = path.length;
      this.#writerFailure[node] = branch === 'failure' ? 1 : 0;
      return;
    }
    this.#more ??= new Map();
    const w: StateWriter = { step, branch, length: path.length };
    const more = this.#more.get(node);
    if (more === undefined) this.#more.set(node, [w]);
    else more.push(w);
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
    let node = ROOT;
    for (let i = 0; ; i++) {
      if (out !== null) this.#writersInto(node, out);
      if (i === path.length) break;
      node = this.#child(node, keyOf(path[i]!), false);
      if (node === NONE) return NO_STEPS;
    }
    if (this.#firstChild[node] === NONE) return NO_STEPS;
    this.#below ??= new Map();
    let below = this.#below.get(node);
    if (below === undefined) {
      below = this.#collectBelow(node);
      this.#below.set(node, below);
    }
    return below;
  }

  #writersInto(node: number, out: StateWriter[]): void {
    const step = this.#writerStep[node]!;
    if (step === NONE) return;
    const branch = this.#writerFailure[node] === 1 ? 'failure' : 'success';
    out.push({ step, branch, length: this.#writerLength[node]! });
    const more = this.#more?.get(node);
    if (more !== undefined) for (let k = 0; k < more.length; k++) out.push(more[k]!);
  }

  /** Depth first, children in the order they were added (the last pushed is visited first). */
  #collectBelow(start: number): number[] {
    const out: number[] = [];
    const stack: number[] = [];
    for (let c = this.#firstChild[start]!; c !== NONE; c = this.#nextSibling[c]!) stack.push(c);
    while (stack.length > 0) {
      const node = stack.pop()!;
      const step = this.#writerStep[node]!;
      if (step !== NONE) out.push(step);
      const more = this.#more?.get(node);
      if (more !== undefined) for (const w of more) out.push(w.step);
      for (let c = this.#firstChild[node]!; c !== NONE; c = this.#nextSibling[c]!) stack.push(c);
    }
    return out;
  }

  /** The child of `node` along `key`: created when `create`, else NONE when there is none. */
  #child(node: number, key: string, create: boolean): number {
    if (!create) {
      // Generated plans read state in the order it was written (step i reads what step i - 1
      // wrote): try the child the last lookup went to and the one added after it before probing
      // the table, a cache miss on big plans.
      const last = this.#recent[node]!;
      if (last !== NONE) {
        if (this.#segment[last] === key) return last;
        const next = this.#nextSibling[last]!;
        if (next !== NONE && this.#segment[next] === key) return (this.#recent[node] = next);
      }
    }
    const h = (hashString(key) ^ Math.imul(node + 1, 0x9e3779b1)) & 0x7fffffff;
    const edges = this.#edges;
    const mask = edges.length / 3 - 1;
    for (let p = h & mask; ; p = (p + 1) & mask) {
      const child = edges[p * 3 + 2]!;
      if (child === ROOT) break;
      if (edges[p * 3] === h && edges[p * 3 + 1] === node && this.#segment[child] === key) {
        if (!create) this.#recent[node] = child;
        return child;
      }
    }
    return create ? this.#addNode(node, key, h) : NONE;
  }

  #addNode(parent: number, key: string, hash: number): number {
    const node = this.#count++;
    if (node === this.#parent.length) this.#grow();
    this.#segment.push(key);
    this.#parent[node] = parent;
    if (this.#lastChild[parent] === NONE) this.#firstChild[parent] = node;
    else this.#nextSibling[this.#lastChild[parent]!] = node;
    this.#lastChild[parent] = node;
    if (++this.#edgeCount * 2 > this.#edges.length / 3) this.#rehash();
    this.#insertEdge(hash, parent, node);
    return node;
  }

  #insertEdge(hash: number, parent: number, child: number): void {
    const edges = this.#edges;
    const mask = edges.length / 3 - 1;
    let p = hash & mask;
    while (edges[p * 3 + 2] !== ROOT) p = (p + 1) & mask;
    edges[p * 3] = hash;
    edges[p * 3 + 1] = parent;
    edges[p * 3 + 2] = child;
  }

  #rehash(): void {
    const old = this.#edges;
    this.#edges = new Int32Array(tableSize(this.#edgeCount) * 3);
    for (let p = 0; p < old.length; p += 3) {
      if (old[p + 2] !== ROOT) this.#insertEdge(old[p]!, old[p + 1]!, old[p + 2]!);
    }
  }

  #grow(): void {
    const size = this.#parent.length * 2;
    const widen = (a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> => {
      const b = new Int32Array(size).fill(NONE);
      b.set(a);
      return b;
    };
    this.#parent = widen(this.#parent);
    this.#firstChild = widen(this.#firstChild);
    this.#lastChild = widen(this.#lastChild);
    this.#nextSibling = widen(this.#nextSibling);
    this.#writerStep = widen(this.#writerStep);
    this.#recent = widen(this.#recent);
    const length = new Int32Array(size);
    length.set(this.#writerLength);
    this.#writerLength = length;
    const failure = new Uint8Array(size);
    failure.set(this.#writerFailure);
    this.#writerFailure = failure;
  }
}

function keyOf(seg: PathSegment): string {
  return typeof seg === 'string' ? seg : String(seg);
}
