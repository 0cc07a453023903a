/**
 * Browser code: the runs list (`GET /v1/runs`) — status filter, cursor paging, auto-refresh. The
 * cursors of the pages seen so far are kept, so "Newer" goes back exactly to the page before.
 */
export const RUNS_LIST_JS = String.raw`
const RUNS_PAGE_SIZE = 20;
const RUNS_REFRESH_MS = 5000;
const runsList = { cursors: [null], page: 0, loading: false, again: false, timer: 0, selected: null };

/** Loads the current page; a call made while one is in flight loads again once it is done. */
async function loadRuns() {
  if (runsList.loading) {
    runsList.again = true;
    return;
  }
  runsList.loading = true;
  const params = new URLSearchParams({ limit: String(RUNS_PAGE_SIZE) });
  const status = $('runs-status').value;
  if (status) params.set('status', status);
  const cursor = runsList.cursors[runsList.page];
  if (cursor) params.set('cursor', cursor);
  $('runs-panel').setAttribute('aria-busy', 'true');
  const r = await api('GET', '/v1/runs?' + params.toString());
  runsList.loading = false;
  $('runs-panel').removeAttribute('aria-busy');
  if (runsList.again) {
    runsList.again = false;
    void loadRuns();
    return;
  }
  if (!r.ok) {
    show($('runs-error'), errorBox(r.error, r.status, 'Loading runs'));
    return;
  }
  show($('runs-error'), null);
  const runs = Array.isArray(r.data.runs) ? r.data.runs : [];
  renderRuns(runs);
  runsList.cursors.length = runsList.page + 1;
  if (r.data.next_cursor) runsList.cursors.push(r.data.next_cursor);
  $('runs-prev').disabled = runsList.page === 0;
  $('runs-next').disabled = !r.data.next_cursor;
  setText($('runs-page'), 'Page ' + (runsList.page + 1));
  setText($('runs-updated'), 'Updated ' + new Date().toLocaleTimeString([], { hour12: false }));
}

function renderRuns(runs) {
  const body = $('runs-body');
  // Rows are rebuilt on every refresh: keep the keyboard focus on the run it was on.
  const focused = document.activeElement && body.contains(document.activeElement) ? document.activeElement.closest('tr') : null;
  const focusRun = focused ? focused.getAttribute('data-run') : null;
  if (runs.length === 0) {
    const filtered = $('runs-status').value;
    show(body, h('tr', null, h('td', { colspan: 4, class: 'empty' }, filtered ? 'No ' + filtered + ' runs.' : 'No runs yet: start one under "New run".')));
    return;
  }
  body.replaceChildren(
    ...runs.map((run) => {
      const selected = run.run_id === runsList.selected;
      return h(
        'tr',
        { class: selected ? 'selected' : null, 'data-run': run.run_id },
        h(
          'td',
          { class: 'run-cell' },
          h('a', { href: '#run=' + encodeURIComponent(run.run_id), class: 'mono', title: run.run_id, 'aria-current': selected ? 'true' : null }, shortId(run.run_id)),
          h('div', { class: 'goal', title: run.goal || '' }, run.goal || '(no goal)'),
        ),
        h('td', null, badge(run.status)),
        h('td', { class: 'num' }, run.step_count),
        h('td', { title: run.created_at }, fmtShortDate(run.created_at)),
      );
    }),
  );
  const again = focusRun && [...body.querySelectorAll('tr[data-run]')].find((tr) => tr.getAttribute('data-run') === focusRun);
  if (again) again.querySelector('a').focus();
}

/** "run_c1719a6171…": enough to tell runs apart in the list; the full id is the link's title. */
function shortId(id) {
  return id.length > 16 ? id.slice(0, 14) + '\u2026' : id;
}

/** The time for today's runs, the date for older ones. */
function fmtShortDate(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso || '\u2014');
  const today = d.toDateString() === new Date().toDateString();
  return today ? d.toLocaleTimeString([], { hour12: false }) : d.toLocaleDateString();
}

/** Marks the open run in the list without reloading it. */
function markSelectedRun(runId) {
  runsList.selected = runId;
  for (const tr of $('runs-body').querySelectorAll('tr[data-run]')) {
    const on = tr.getAttribute('data-run') === runId;
    tr.classList.toggle('selected', on);
    const a = tr.querySelector('a');
    if (a) {
      if (on) a.setAttribute('aria-current', 'true');
      else a.removeAttribute('aria-current');
    }
  }
}

function firstRunsPage() {
  runsList.cursors = [null];
  runsList.page = 0;
  void loadRuns();
}

function setAutoRefresh(on) {
  clearInterval(runsList.timer);
  runsList.timer = on
    ? setInterval(() => {
        if (!document.hidden) void loadRuns();
      }, RUNS_REFRESH_MS)
    : 0;
}

function initRunsList() {
  $('runs-status').addEventListener('change', firstRunsPage);
  $('runs-refresh').addEventListener('click', () => void loadRuns());
  $('runs-prev').addEventListener('click', () => {
    if (runsList.page > 0) runsList.page -= 1;
    void loadRuns();
  });
  $('runs-next').addEventListener('click', () => {
    if (runsList.cursors[runsList.page + 1]) runsList.page += 1;
    void loadRuns();
  });
  $('runs-auto').addEventListener('change', (e) => setAutoRefresh(e.target.checked));
  setAutoRefresh($('runs-auto').checked);
  void loadRuns();
}
`;
