import { describe, expect, it } from 'vitest';
import { StateIndex } from '../../src/plan/state-index';
import type { StateWriter } from '../../src/plan/state-index';
import type { PathSegment } from '../../src/plan/references';

type Write = { step: number; path: PathSegment[]; branch: 'success' | 'failure' };

/** The answers a trie must give, by comparing every written path with the read one. */
function naiveAbove(writes: readonly Write[], path: readonly PathSegment[]): StateWriter[] {
  return writes
    .filter((w) => isPrefix(w.path, path))
    .map((w, order) => ({ w, order }))
    .sort((a, b) => a.w.path.length - b.w.path.length || a.order - b.order)
    .map(({ w }) => ({ step: w.step, branch: w.branch, length: w.path.length }));
}

function naiveBelow(writes: readonly Write[], path: readonly PathSegment[]): number[] {
  return writes.filter((w) => w.path.length > path.length && isPrefix(path, w.path)).map((w) => w.step);
}

function isPrefix(prefix: readonly PathSegment[], path: readonly PathSegment[]): boolean {
  return prefix.length <= path.length && prefix.every((seg, k) => String(seg) === String(path[k]));
}

const byNumber = (a: number, b: number): number => a - b;

function random(seed: number): (k: number) => number {
  // mulberry32: small, and unlike a bare LCG its low bits are not periodic.
  let s = seed >>> 0;
  return (k) => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return ((t ^ (t >>> 14)) >>> 0) % k;
  };
}

describe('state index', () => {
  it('answers who writes a path, above it and below it, in the order the trie walks', () => {
    const index = new StateIndex();
    index.add(0, ['user'], 'success');
    index.add(1, ['user', 'name'], 'success');
    index.add(2, ['user', 'name'], 'failure');
    index.add(3, ['account'], 'success');
    expect(index.above(['user', 'name', 'first'])).toEqual([
      { step: 0, branch: 'success', length: 1 },
      { step: 1, branch: 'success', length: 2 },
      { step: 2, branch: 'failure', length: 2 },
    ]);
    expect(index.below(['user'])).toEqual([1, 2]);
    expect(index.below([])).toEqual([3, 0, 1, 2]);
    expect(index.below(['nobody'])).toEqual([]);
  });

  it('treats a numeric segment and its digits as the same key', () => {
    const index = new StateIndex();
    index.add(0, ['items', 0], 'success');
    expect(index.above(['items', '0', 'url'])).toEqual([{ step: 0, branch: 'success', length: 2 }]);
  });

  it('agrees with comparing every pair of paths, on random writes and reads in any order', () => {
    const names: PathSegment[] = ['a', 'b', 'c', 0, '0', 1, 'x.y', ''];
    for (let seed = 1; seed <= 40; seed++) {
      const next = random(seed);
      const somePath = (): PathSegment[] => Array.from({ length: next(4) }, () => names[next(names.length)]!);
      const index = new StateIndex(next(2) === 0 ? 0 : 40);
      const writes: Write[] = [];
      for (let round = 0; round < 3; round++) {
        for (let k = 0; k < 1 + next(60); k++) {
          const w: Write = {
            step: writes.length,
            path: somePath(),
            branch: next(3) === 0 ? 'failure' : 'success',
          };
          if (w.path.length > 0) {
            writes.push(w);
            index.add(w.step, w.path, w.branch);
          }
        }
        // Reads in the order paths were written (the look-ahead path), then at random.
        const reads = [...writes.map((w) => w.path), ...Array.from({ length: 40 }, somePath)];
        for (const path of reads) {
          expect(index.above(path)).toEqual(naiveAbove(writes, path));
          expect([...index.below(path)].sort(byNumber)).toEqual(naiveBelow(writes, path).sort(byNumber));
        }
      }
    }
  });
});
