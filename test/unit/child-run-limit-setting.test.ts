import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TREE_CHILD_RUNS, treeChildRunLimit } from '../../src/durable/child-run-limits';

describe('treeChildRunLimit (MAX_CHILD_RUNS)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('takes a whole number from 1 to 100,000, and unset is the default', () => {
    expect(treeChildRunLimit({})).toBe(MAX_TREE_CHILD_RUNS);
    expect(treeChildRunLimit({ MAX_CHILD_RUNS: ' ' })).toBe(MAX_TREE_CHILD_RUNS);
    expect(treeChildRunLimit({ MAX_CHILD_RUNS: '5000' })).toBe(5000);
    expect(treeChildRunLimit({ MAX_CHILD_RUNS: '1' })).toBe(1);
    expect(treeChildRunLimit({ MAX_CHILD_RUNS: '100000' })).toBe(100_000);
  });

  it('keeps the default for anything else, logged once with what to set', () => {
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(String(line)));
    for (const raw of ['0', '-5', '2.5', '100001', 'lots', 'Infinity', '1e9', '1e9']) {
      expect(treeChildRunLimit({ MAX_CHILD_RUNS: raw })).toBe(MAX_TREE_CHILD_RUNS);
    }
    const logged = lines.map((l) => JSON.parse(l) as { event: string; message: string });
    // Each value once: the second '1e9' is not logged again.
    expect(logged.map((l) => l.event)).toEqual(Array(7).fill('child_run_limit_invalid'));
    expect(logged[4]!.message).toBe(
      'MAX_CHILD_RUNS is "lots": expected a whole number from 1 to 100000; a run\'s tree may start 1000 child runs until it is one',
    );
  });
});
