/**
 * `Promise.allSettled` over a list, with at most `limit` calls under way at once: a run with many child
 * runs deletes them side by side without opening a call to every one of them at the same moment.
 */

/**
 * Calls `fn` on every item, at most `limit` at a time, in the items' order; every call runs, whatever
 * the others do. The outcomes come back in the items' order.
 * @example await settleBounded(['a', 'b', 'c'], 2, (id) => remove(id)) // [{ status: 'fulfilled', … }, …]
 */
export async function settleBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const out = new Array<PromiseSettledResult<R>>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      try {
        out[i] = { status: 'fulfilled', value: await fn(items[i]!, i) };
      } catch (reason) {
        out[i] = { status: 'rejected', reason };
      }
    }
  };
  const workers = Math.max(1, Math.min(Math.floor(limit), items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return out;
}
