/** settleBounded: every item is called, never more than `limit` at once, outcomes in the items' order. */
import { describe, expect, it } from 'vitest';
import { settleBounded } from '../../src/durable/settle-bounded';

/** A call that ends only when the test lets it: what is in flight is seen without any timing. */
function gate() {
  const started: number[] = [];
  const release = new Map<number, (fail: boolean) => void>();
  let inFlight = 0;
  let most = 0;
  const fn = (item: number) =>
    new Promise<number>((resolve, reject) => {
      started.push(item);
      inFlight++;
      most = Math.max(most, inFlight);
      release.set(item, (fail) => {
        inFlight--;
        if (fail) reject(new Error(`item ${item} failed`));
        else resolve(item * 10);
      });
    });
  return { fn, started, release, most: () => most };
}

/** Lets pending promise callbacks run (no clock involved). */
const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('settleBounded', () => {
  it('starts `limit` calls at once, the next as one ends, and never more than `limit`', async () => {
    const g = gate();
    const items = Array.from({ length: 20 }, (_, i) => i);
    const all = settleBounded(items, 8, g.fn);
    await settle();
    expect(g.started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    g.release.get(3)!(false);
    await settle();
    expect(g.started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    for (let i = 0; i < 20; i++) {
      await settle();
      if (i !== 3) g.release.get(i)!(i === 5);
    }
    const out = await all;
    expect(g.most()).toBe(8);
    expect(out.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(
      items.map((i) => (i === 5 ? 'item 5 failed' : i * 10)),
    );
  });

  it('runs every call even when earlier ones fail, and answers an empty list at once', async () => {
    const calls: number[] = [];
    const out = await settleBounded([1, 2, 3], 2, (i) => {
      calls.push(i);
      return i === 1 ? Promise.reject(new Error('one')) : Promise.resolve(i);
    });
    expect(calls).toEqual([1, 2, 3]);
    expect(out.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(await settleBounded([], 8, () => Promise.resolve(1))).toEqual([]);
  });
});
