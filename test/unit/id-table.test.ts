import { describe, expect, it } from 'vitest';
import { IdTable, hashString, tableSize } from '../../src/plan/id-table';

describe('id table', () => {
  it('finds each id at its position and says -1 for an unknown one', () => {
    const t = new IdTable(['search', 'fetch', 'sum']);
    expect(['search', 'fetch', 'sum', 'nope', ''].map((id) => t.get(id))).toEqual([0, 1, 2, -1, -1]);
  });

  it('finds the first of a repeated id and lists the later positions as duplicates', () => {
    const t = new IdTable(['a', 'b', 'a', 'c', 'b', 'a']);
    expect(t.duplicates).toEqual([2, 4, 5]);
    // In step order, so the look-ahead for "the position after the last one found" is tried.
    expect(['a', 'b', 'a', 'c', 'b', 'a'].map((id) => t.get(id))).toEqual([0, 1, 0, 3, 1, 0]);
  });

  it('agrees with indexOf whatever order ids are looked up in', () => {
    let seed = 7;
    const next = (k: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
      return (seed >>> 8) % k; // the high bits: an LCG's low bits are periodic
    };
    const ids = Array.from({ length: 300 }, () => `s${next(120)}`);
    const t = new IdTable(ids);
    const asked = [
      ...Array.from({ length: 150 }, (_, i) => `s${i}`),
      ...Array.from({ length: 300 }, () => `s${next(150)}`),
    ];
    expect(asked.map((id) => t.get(id))).toEqual(asked.map((id) => ids.indexOf(id)));
  });

  it('sizes tables to powers of two at most half full', () => {
    expect([0, 4, 5, 100, 100_000].map(tableSize)).toEqual([8, 8, 16, 256, 262_144]);
    expect(hashString('a')).not.toBe(hashString('b'));
    expect(hashString('x'.repeat(100))).toBeGreaterThanOrEqual(0);
  });
});
