/**
 * Who writes which state path: a trie of `output_path`s that answers "who writes P, above P or
 * below P" in O(|P| + answer), so state-path dependencies never need a pairwise comparison.
 */
import type { PathSegment } from './references';

/** One `output_path` side covering a read path: the writer's position, branch and path length. */
export type StateWriter = { step: number; branch: 'success' | 'failure'; length: number };

/** `first` holds the usual single writer; `more` any others (no array per node for the common case). */
type TrieNode = {
  children: Map<string, TrieNode> | null;
  first: StateWriter | null;
  more: StateWriter[] | null;
  below: number[] | null;
};

const newNode = (): TrieNode => ({ children: null, first: null, more: null, below: null });

export const NO_STEPS: readonly number[] = Object.freeze([]);

/** A trie of written state paths; answers "who writes P, above P or below P" in O(|P| + answer). */
export class StateIndex {
  readonly #root: TrieNode = newNode();

  add(step: number, path: readonly PathSegment[], branch: 'success' | 'failure'): void {
    let node = this.#root;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i]!;
      node.children ??= new Map();
      const key = typeof seg === 'string' ? seg : String(seg);
      let next = node.children.get(key);
      if (next === undefined) {
        next = newNode();
        node.children.set(key, next);
      }
      node = next;
    }
    const w: StateWriter = { step, branch, length: path.length };
    if (node.first === null) node.first = w;
    else if (node.more === null) node.more = [w];
    else node.more.push(w);
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
      if (out !== null && node.first !== null) {
        out.push(node.first);
        const more = node.more;
        if (more !== null) for (let k = 0; k < more.length; k++) out.push(more[k]!);
      }
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
    if (node.first !== null) out.push(node.first.step);
    if (node.more !== null) for (const w of node.more) out.push(w.step);
    for (const child of node.children?.values() ?? []) stack.push(child);
  }
  return out;
}
