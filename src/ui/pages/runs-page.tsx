/** The runs, newest first, filterable by status, a page at a time; "Loading runs…" until read. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { RunSummary } from '../../client';
import { keptPage, LISTED_STATUSES, listedStatus, type ListedStatus } from '../../client/listed-status';
import { isTransient } from '../../client/watch';
import { api, errorText } from '../api';
import { href } from '../router';
import { ErrorAlert } from '../components/error-alert';
import { refreshedRuns, type ListedRuns } from '../refreshed-runs';
import { visibleText } from '../visible-text';

/** Rows a page; the API gives at most MAX_PAGE a request. */
const PAGE = 50;
const MAX_PAGE = 200;

/** Whether a row the API returns is badged with a listed status (client/listed-status.ts). */
const shows = (s: ListedStatus | '') => (r: RunSummary) => !s || listedStatus(r) === s;

export function RunsPage() {
  const [status, setStatus] = useState<ListedStatus | ''>('');
  const [{ runs, cursor }, setList] = useState<ListedRuns>({ runs: [], cursor: null });
  // The list as last set, for answers that come in before it is drawn (a refresh's after More's): the
  // interval's closure, and a render not yet made, would see an older one.
  const list = useRef<ListedRuns>({ runs: [], cursor: null });
  const show = (next: ListedRuns) => {
    list.current = next;
    setList(next);
  };
  const [error, setError] = useState<string | null>(null);
  /** The service is out of reach (a restart, the network): the list is read again every 5 s. */
  const [lost, setLost] = useState(false);
  const [loaded, setLoaded] = useState(false);

  // The filter now: a page asked for under an earlier one is dropped when it arrives. Another filter
  // clears the rows in the same render that shows it (none are known to pass it) — cleared by the
  // effect, after a frame, the rows of the last filter showed under the new one, and a refresh
  // answered in between drew them again.
  const filter = useRef(status);
  const choose = (next: ListedStatus | '') => {
    filter.current = next;
    show({ runs: [], cursor: null });
    setLoaded(false);
    setStatus(next);
  };

  const load = async (more: boolean) => {
    const asked = status;
    try {
      // A refresh re-reads as many rows as are shown (up to the API's 200), so "More" is not undone.
      const limit = more ? PAGE : Math.min(MAX_PAGE, Math.max(PAGE, list.current.runs.length));
      const read = (from: string | null) =>
        api().listRuns({
          limit,
          ...(status ? { status } : {}),
          ...(from ? { cursor: from } : {}),
        });
      // The API finds rejected runs itself, and lists them among cancelled ones too: the badge and the
      // filter agree here. A page of cancelled runs may hold only rejected ones though an older page
      // holds others: read on (a few pages at most) rather than say there are none.
      const from = more ? list.current.cursor : null;
      const page = await keptPage(read, from, shows(status), () => filter.current !== asked);
      if (page === null) return;
      // Rows past the refreshed ones stay, none twice (refreshed-runs.ts).
      show(
        more
          ? { runs: [...list.current.runs, ...page.runs], cursor: page.next_cursor }
          : refreshedRuns(list.current, page),
      );
      setError(null);
      setLost(false);
    } catch (e) {
      if (filter.current !== asked) return;
      // Out of reach: said calmly, as a run's page says it, the rows kept as last read — not a red
      // "unreachable: … Failed to fetch" every 5 s. A refusal (a token, a bad filter) is an error.
      if (isTransient(e) && !more) {
        setLost(true);
        setError(null);
        return;
      }
      setError(errorText(e));
    }
    setLoaded(true);
  };
  // The last page read, More goes away with focus on it: focus to the first run it brought, where the
  // reader goes on (left on nothing, the next Tab started again from the page's top).
  const more = async () => {
    const before = list.current.runs.length;
    await load(true);
    requestAnimationFrame(() => {
      if (document.activeElement !== document.body && document.activeElement !== null) return;
      document.querySelectorAll<HTMLElement>('table.runs tbody tr')[before]?.querySelector('a')?.focus();
    });
  };
  useEffect(() => {
    void load(false);
    const t = setInterval(() => void load(false), 5000);
    return () => clearInterval(t);
  }, [status]);

  return (
    <main>
      <div class="toolbar">
        <h1>Runs</h1>
        <label>
          Status{' '}
          <select
            value={status}
            onChange={(e) => choose((e.target as HTMLSelectElement).value as ListedStatus | '')}
          >
            <option value="">all</option>
            {LISTED_STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <a class="button primary" href={href.newRun()}>
          New run
        </a>
      </div>
      <ErrorAlert text={error} />
      {lost ? (
        <p class="connection" role="status">
          Connection lost — retrying…{' '}
          {runs.length ? <span class="muted">(showing the runs as last read)</span> : null}
        </p>
      ) : null}
      {/* On a slow link the list took seconds to come, the page meanwhile blank under its heading. */}
      {!loaded && !error && !lost ? (
        <p class="muted empty" role="status">
          Loading runs…
        </p>
      ) : null}
      {loaded && runs.length === 0 && !error ? (
        status ? (
          <p class="muted empty">
            {/* More runs to read (rejected ones are looked for among cancelled): none yet, not none. */}
            {cursor
              ? `No runs with status “${status}” among the newest; More reads older ones.`
              : `No runs with status “${status}”.`}{' '}
            <button type="button" onClick={() => choose('')}>
              Show all runs
            </button>
          </p>
        ) : (
          <p class="muted empty">No runs yet. Start one with “New run”.</p>
        )
      ) : null}
      {runs.length ? (
        <table class="runs">
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Status</th>
              <th scope="col" class="num">
                Steps
              </th>
              {/* As the API gives it: UTC, whatever the reader's clock says. */}
              <th scope="col">Created (UTC)</th>
              <th scope="col">Goal</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.run_id} data-run-id={r.run_id}>
                <td>
                  <a href={href.run(r.run_id)}>{r.run_id}</a>
                  {r.parent_run_id ? (
                    <div class="muted child-of">
                      {'child of '}
                      <a href={href.run(r.parent_run_id)} aria-label={`child of ${r.parent_run_id}`}>
                        {r.parent_run_id.slice(0, 12)}…
                      </a>
                    </div>
                  ) : null}
                </td>
                <td>
                  <span
                    class={`badge status-${listedStatus(r)}`}
                    data-status={r.status}
                    title={r.termination_reason ?? undefined}
                  >
                    {listedStatus(r)}
                  </span>
                </td>
                <td class="num" data-unit={r.step_count === 1 ? 'step' : 'steps'}>
                  {r.step_count}
                </td>
                <td class="created">{r.created_at.replace('T', ' ').slice(0, 19)}</td>
                {/* Cut to a line (three on a phone): whole on hover. */}
                <td class="goal" dir="auto" title={visibleText(r.goal)}>
                  {/* A plan submitted without one: said, not a blank that reads as not loaded. */}
                  {r.goal.trim() === '' ? <span class="muted">no goal</span> : visibleText(r.goal)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {cursor ? (
        <button type="button" onClick={() => void more()}>
          More
        </button>
      ) : null}
    </main>
  );
}
