/**
 * The dashboard's runs list after its refresh (src/ui/refreshed-runs.ts): a refresh that read fewer
 * rows than are shown — "More" answered while it was on its way, more than 200 rows shown, new runs
 * pushing rows past it — loses no row, lists none twice, and leaves "More" reading on after the last
 * row shown.
 */
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/client';
import { refreshedRuns } from '../../src/ui/refreshed-runs';

/** Run `n`, created `n` seconds after midnight: the higher, the newer. */
const run = (n: number) =>
  ({
    run_id: `run_${String(n).padStart(4, '0')}`,
    status: 'completed',
    goal: `g${n}`,
    created_at: `2026-01-01T00:${String(Math.floor(n / 60)).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}.000Z`,
  }) as RunSummary;
/** Runs `from` down to `to`, newest first, as the API lists them. */
const runs = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, i) => run(from - i));
const ids = (list: RunSummary[]) => list.map((r) => r.run_id);

describe('the runs list after a refresh', () => {
  it('keeps the cursor after the rows a More brought when the refresh was asked before it was answered', () => {
    // 150 runs; 100 shown (More answered: its cursor after run 51); the refresh asked for 50.
    const shown = { runs: runs(150, 51), cursor: 'after-51' };
    const next = refreshedRuns(shown, { runs: runs(150, 101), next_cursor: 'after-101' });
    expect(ids(next.runs)).toEqual(ids(runs(150, 51)));
    expect(next.cursor).toBe('after-51');
  });

  it('keeps the rows new runs pushed past the refresh, each once', () => {
    // 50 shown after a More (100 runs); two new runs since: a refresh of 50 reaches run 53 only.
    const shown = { runs: runs(100, 51), cursor: 'after-51' };
    const next = refreshedRuns(shown, { runs: runs(102, 53), next_cursor: 'after-53' });
    expect(ids(next.runs)).toEqual(ids(runs(102, 51)));
    expect(next.cursor).toBe('after-51');
  });

  it('takes the refresh’s rows and cursor when it reached every row shown', () => {
    const shown = { runs: runs(100, 51), cursor: 'after-51' };
    const deleted = runs(100, 51).filter((r) => r.run_id !== run(70).run_id);
    const next = refreshedRuns(shown, { runs: [run(101), ...deleted], next_cursor: 'after-51' });
    expect(ids(next.runs)).toEqual(ids([run(101), ...deleted]));
    expect(next.cursor).toBe('after-51');
  });

  it('drops the rows shown past the end of the list once the refresh read to it', () => {
    const shown = { runs: runs(10, 1), cursor: null };
    const next = refreshedRuns(shown, { runs: runs(10, 3), next_cursor: null });
    expect(ids(next.runs)).toEqual(ids(runs(10, 3)));
    expect(next.cursor).toBeNull();
  });

  it('keeps the rows shown when the pages read kept none (a filter the API does not apply)', () => {
    const shown = { runs: runs(10, 5), cursor: 'after-5' };
    expect(refreshedRuns(shown, { runs: [], next_cursor: 'after-0' })).toBe(shown);
  });
});
