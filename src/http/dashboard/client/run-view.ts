/**
 * Browser code: one run (`GET /v1/runs/:id`) — status, progress, counts, tokens, the plan's steps,
 * their results, the final output — and the Cancel / Retry controls. The snapshot is re-read
 * (throttled) whenever a live event arrives; step rows are kept by id and only changed cells are
 * touched, so a large plan does not re-render wholesale on every event.
 */
export const RUN_VIEW_JS = String.raw`
const STEP_ROWS_SHOWN = 300;
const COUNT_KEYS = ['total', 'pending', 'blocked', 'running', 'completed', 'failed', 'skipped'];
const view = { runId: null, snap: null, rows: new Map(), order: '', showAll: false, timer: 0, inflight: false, again: false };

/** Shows a run (or the empty state for null), and follows its events. */
function openRun(runId) {
  if (runId === view.runId) return;
  stopLive();
  clearTimeout(view.timer);
  Object.assign(view, { runId, snap: null, rows: new Map(), order: '', showAll: false, timer: 0, again: false });
  markSelectedRun(runId);
  $('run-empty').hidden = Boolean(runId);
  $('run-detail').hidden = !runId;
  for (const id of ['steps-body', 'run-error', 'run-action-result', 'run-failure', 'steps-more', 'event-log']) $(id).replaceChildren();
  setText($('event-count'), '');
  if (!runId) return;
  setLiveStatus('connecting', 'Loading the run\u2026');
  setText($('run-id'), runId);
  setText($('run-goal'), '');
  show($('run-status'), badge('loading'));
  void refreshRun();
}

/** Re-reads the snapshot soon; calls in between collapse into one request. */
function scheduleRefresh() {
  if (view.timer) return;
  view.timer = setTimeout(() => {
    view.timer = 0;
    void refreshRun();
  }, 250);
}

async function refreshRun() {
  const runId = view.runId;
  if (!runId) return;
  if (view.inflight) {
    view.again = true;
    return;
  }
  view.inflight = true;
  const r = await api('GET', '/v1/runs/' + encodeURIComponent(runId));
  view.inflight = false;
  if (runId !== view.runId) return;
  if (r.ok) {
    show($('run-error'), null);
    const wasTerminal = view.snap && TERMINAL.has(view.snap.status);
    renderRun(r.data);
    if (TERMINAL.has(r.data.status) && !wasTerminal) void loadRuns();
  } else {
    show($('run-error'), errorBox(r.error, r.status, 'Loading run ' + runId));
    if (r.status === 404) {
      setLiveStatus('retrying', 'No such run.');
      show($('run-status'), badge('not found'));
    }
  }
  // Follow the events once the run is known to exist (a missing one has nothing to reconnect to).
  if (r.status !== 404 && live.runId !== runId) startLive(runId);
  if (view.again) {
    view.again = false;
    scheduleRefresh();
  }
}

function renderRun(s) {
  view.snap = s;
  show($('run-status'), badge(s.status));
  setText($('run-goal'), s.goal || '(no goal)');
  const c = s.counts || {};
  const done = (c.completed || 0) + (c.failed || 0) + (c.skipped || 0);
  $('run-progress').value = typeof s.progress === 'number' ? s.progress : 0;
  $('run-progress').className = 'p-' + String(s.status).replace(/[^a-z_]/g, '');
  setText($('run-progress-text'), done + ' / ' + (c.total || 0) + ' steps settled (' + Math.round((s.progress || 0) * 100) + '%)');
  for (const k of COUNT_KEYS) setText($('count-' + k), c[k] ?? 0);
  const plan = s.plan || {};
  setText($('meta-plan'), plan.id ? plan.id + ' v' + s.plan_version : '\u2014');
  setText($('meta-revisions'), s.revision_count ?? 0);
  setText($('meta-started'), fmtDate(s.started_at));
  setText($('meta-completed'), fmtDate(s.completed_at));
  setText($('meta-duration'), typeof s.execution_time === 'number' ? fmtMs(s.execution_time * 1000) : '\u2014');
  const t = s.token_usage || {};
  setText($('meta-tokens'), (t.total_tokens ?? 0) + ' (prompt ' + (t.prompt_tokens ?? 0) + ', completion ' + (t.completion_tokens ?? 0) + ')');
  setText($('meta-seq'), s.last_seq ?? 0);
  show(
    $('run-failure'),
    s.error
      ? h('div', { class: 'error', role: 'alert' }, h('p', null, h('strong', null, 'Run error: '), h('code', { class: 'code' }, s.error.code), ' ', s.error.message, s.error.retryable ? ' (retryable)' : ''))
      : null,
  );
  setText($('run-final'), s.final_output === undefined || s.final_output === null ? (TERMINAL.has(s.status) ? 'null' : '(not yet: the run is ' + s.status + ')') : pretty(s.final_output));
  const vars = s.state || {};
  $('run-state-box').hidden = Object.keys(vars).length === 0;
  setText($('run-state'), pretty(vars));
  renderControls(s);
  renderSteps(s);
}

function renderControls(s) {
  const terminal = TERMINAL.has(s.status);
  $('cancel-btn').disabled = terminal;
  $('retry-btn').disabled = !(s.status === 'failed' || s.status === 'aborted' || s.status === 'cancelled');
  const failed = Object.keys(s.step_statuses || {}).filter((id) => s.step_statuses[id] === 'failed');
  const select = $('retry-step');
  const wanted = [''].concat(failed).join('\n');
  if (select.getAttribute('data-options') !== wanted) {
    const keep = select.value;
    select.replaceChildren(h('option', { value: '' }, 'all failed steps'), ...failed.map((id) => h('option', { value: id }, 'step ' + id)));
    select.value = failed.includes(keep) ? keep : '';
    select.setAttribute('data-options', wanted);
  }
  select.disabled = $('retry-btn').disabled;
}

function renderSteps(s) {
  const planSteps = s.plan && Array.isArray(s.plan.steps) ? s.plan.steps : [];
  const byId = new Map(planSteps.map((p) => [p.id, p]));
  const ids = planSteps.map((p) => p.id);
  for (const id of Object.keys(s.steps || {})) if (!byId.has(id)) ids.push(id);
  const shown = view.showAll ? ids : ids.slice(0, STEP_ROWS_SHOWN);
  for (const id of shown) updateStepRow(id, byId.get(id), (s.steps || {})[id], s.step_results || {});
  const order = shown.join('\n');
  if (order !== view.order) {
    view.order = order;
    $('steps-body').replaceChildren(...shown.flatMap((id) => [view.rows.get(id).tr, view.rows.get(id).detail]));
  }
  show(
    $('steps-more'),
    shown.length < ids.length
      ? h('button', { type: 'button', onclick: () => { view.showAll = true; renderSteps(view.snap); } }, 'Show all ' + ids.length + ' steps (' + (ids.length - shown.length) + ' hidden)')
      : null,
  );
  if (ids.length === 0) show($('steps-body'), h('tr', null, h('td', { colspan: 8, class: 'empty' }, 'No plan yet.')));
}

function updateStepRow(id, step, detail, results) {
  let row = view.rows.get(id);
  if (!row) {
    const resultId = nextId('step-result');
    const cells = {};
    for (const k of ['action', 'deps', 'status', 'attempts', 'latency', 'error', 'result']) cells[k] = h('td');
    cells.attempts.className = cells.latency.className = 'num';
    cells.action.className = cells.deps.className = 'mono';
    cells.error.className = 'err';
    const pre = h('pre');
    const detailRow = h('tr', { class: 'result-row', id: resultId, hidden: true }, h('td', { colspan: 8 }, pre));
    const toggle = h('button', { type: 'button', class: 'small', 'aria-expanded': 'false', 'aria-controls': resultId, disabled: true }, 'Show');
    toggle.addEventListener('click', () => {
      const open = toggle.getAttribute('aria-expanded') !== 'true';
      toggle.setAttribute('aria-expanded', String(open));
      setText(toggle, open ? 'Hide' : 'Show');
      detailRow.hidden = !open;
    });
    cells.result.append(toggle);
    const tr = h('tr', null, h('th', { scope: 'row', class: 'mono' }, id), Object.values(cells));
    row = { tr, detail: detailRow, cells, pre, toggle, status: null };
    view.rows.set(id, row);
  }
  const d = detail || {};
  const status = d.status || 'pending';
  if (row.status !== status) {
    row.status = status;
    show(row.cells.status, badge(status));
  }
  setText(row.cells.action, step ? step.action : '\u2014');
  setText(row.cells.deps, step && Array.isArray(step.dependencies) && step.dependencies.length ? step.dependencies.join(', ') : '\u2014');
  setText(row.cells.attempts, d.attempts ?? 0);
  setText(row.cells.latency, fmtMs(d.latency_ms));
  const err = d.error ? d.error.code + ': ' + d.error.message : d.skip_reason ? 'skipped: ' + d.skip_reason : '';
  setText(row.cells.error, err);
  row.cells.error.title = err;
  const has = Object.prototype.hasOwnProperty.call(results, id);
  row.toggle.disabled = !has;
  setText(row.pre, has ? pretty(results[id]) : '');
  if (!has && !row.detail.hidden) {
    row.detail.hidden = true;
    row.toggle.setAttribute('aria-expanded', 'false');
    setText(row.toggle, 'Show');
  }
}

/** Cancel or Retry; the outcome (or the API's error) is shown above the steps. */
async function controlRun(action) {
  const runId = view.runId;
  if (!runId) return;
  if (action === 'cancel' && !confirm('Cancel run ' + runId + '? Running steps are stopped; completed results are kept.')) return;
  const stepId = action === 'retry' ? $('retry-step').value : '';
  const button = $(action + '-btn');
  button.disabled = true;
  const r = await api('POST', '/v1/runs/' + encodeURIComponent(runId) + '/' + action, stepId ? { step_id: stepId } : undefined);
  if (runId !== view.runId) return;
  const label = action === 'cancel' ? 'Cancel' : 'Retry' + (stepId ? ' of step ' + stepId : '');
  show(
    $('run-action-result'),
    r.ok ? h('p', { class: 'ok', role: 'status' }, label + ' accepted: the run is now ', badge(r.data.status)) : errorBox(r.error, r.status, label),
  );
  await refreshRun();
  void loadRuns();
}

function initRunView() {
  $('cancel-btn').addEventListener('click', () => void controlRun('cancel'));
  $('retry-btn').addEventListener('click', () => void controlRun('retry'));
  $('run-refresh').addEventListener('click', () => void refreshRun());
}
`;
