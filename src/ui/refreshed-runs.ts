/**
 * The runs list once a refresh of its newest rows is read (runs-page.tsx reads them every 5 s). A
 * refresh asks for as many rows as are shown when it is sent — fewer than are shown once "More" was
 * answered before it (the refresh's answer then put the cursor back after its own rows: the next
 * More read those rows again, each run listed twice), past the API's 200 rows, or once new runs
 * pushed shown rows past it (the rows it no longer reached were dropped from the list).
 */
import type { RunSummary } from '../client';

/** The rows shown and where "More" reads on (null: no older runs). */
export type ListedRuns = { runs: RunSummary[]; cursor: string | null };

/** Whether `a` comes after `b` in the list: older, as the API orders runs (created_at, then run_id, descending). */
const after = (a: RunSummary, b: RunSummary) =>
  a.created_at < b.created_at || (a.created_at === b.created_at && a.run_id < b.run_id);

/**
 * The refreshed rows, then the rows shown past the last of them, which the refresh did not reach —
 * none lost, none twice. The cursor is the refresh's when it reached every row shown (or the end of
 * the list), else the one after the rows kept.
 * @example
 * const next = refreshedRuns({ runs: shown, cursor }, await client.listRuns({ limit: shown.length }));
 */
export function refreshedRuns(
  shown: ListedRuns,
  page: { runs: RunSummary[]; next_cursor: string | null },
): ListedRuns {
  const last = page.runs.at(-1);
  // The refresh read to the end of the list: what it did not list is gone (deleted, or filtered out).
  if (page.next_cursor === null) return { runs: page.runs, cursor: null };
  // Nothing kept in the pages it read (a filter the API does not apply): the rows shown stay.
  if (last === undefined) return shown;
  const listed = new Set(page.runs.map((r) => r.run_id));
  const beyond = shown.runs.filter((r) => !listed.has(r.run_id) && after(r, last));
  return {
    runs: [...page.runs, ...beyond],
    cursor: beyond.length > 0 ? shown.cursor : page.next_cursor,
  };
}
