/**
 * Browser code: the "New run" panel — plan, config and input as JSON, Validate
 * (`POST /v1/plans/validate`: findings and estimates) and Run (`POST /v1/runs`: the new run is opened;
 * a 422 shows its findings). JSON that does not parse is reported without sending anything.
 */
export const NEW_RUN_JS = String.raw`
function resetDemo() {
  $('plan-json').value = JSON.stringify(DEMO_PLAN, null, 2);
  $('config-json').value = JSON.stringify(DEMO_CONFIG, null, 2);
  $('input-json').value = '';
  show($('new-run-result'), null);
}

function readJson(id, label, optional) {
  const text = $(id).value.trim();
  if (!text) return optional ? { id, value: undefined } : { id, error: label + ' is empty: paste a JSON object.' };
  try {
    return { id, value: JSON.parse(text) };
  } catch (e) {
    return { id, error: label + ' is not valid JSON (' + (e && e.message ? e.message : e) + ').' };
  }
}

/** The three fields parsed, or null after showing what does not parse. */
function readNewRun() {
  const fields = [readJson('plan-json', 'Plan', false), readJson('config-json', 'Config', true), readJson('input-json', 'Input', true)];
  const bad = fields.find((f) => f.error);
  if (bad) {
    show($('new-run-result'), errorBox({ code: 'invalid_json', message: bad.error + ' Nothing was sent.' }, 0, null));
    $(bad.id).focus();
    return null;
  }
  const body = { plan: fields[0].value };
  if (fields[1].value !== undefined) body.config = fields[1].value;
  if (fields[2].value !== undefined) body.input = fields[2].value;
  return body;
}

function setNewRunBusy(busy) {
  $('validate-btn').disabled = busy;
  $('run-btn').disabled = busy;
  $('new-panel').setAttribute('aria-busy', String(busy));
}

async function validateNewRun() {
  const body = readNewRun();
  if (!body) return;
  delete body.input;
  setNewRunBusy(true);
  const r = await api('POST', '/v1/plans/validate', body);
  setNewRunBusy(false);
  show($('new-run-result'), r.ok ? validationView(r.data, 'Validation') : errorBox(r.error, r.status, 'Validate'));
}

async function startNewRun() {
  const body = readNewRun();
  if (!body) return;
  setNewRunBusy(true);
  const r = await api('POST', '/v1/runs', body);
  setNewRunBusy(false);
  const out = $('new-run-result');
  if (!r.ok) {
    show(out, errorBox(r.error, r.status, 'Run'));
    return;
  }
  if (r.data.mode === 'lazy') {
    show(out, validationView(r.data, 'Dry run (config mode "lazy": validated, nothing executed)'));
    return;
  }
  const runId = r.data.run_id;
  show(out, h('p', { class: 'ok', role: 'status' }, 'Started ', h('a', { href: '#run=' + encodeURIComponent(runId), class: 'mono' }, runId), ' (' + r.data.status + ').'));
  location.hash = '#run=' + encodeURIComponent(runId);
  firstRunsPage();
  $('run-h').focus();
}

function validationView(v, title) {
  const errors = Array.isArray(v.errors) ? v.errors : [];
  return h(
    'div',
    { class: v.valid ? 'okbox' : 'warnbox', role: 'status' },
    h('p', null, h('strong', null, title + ': '), v.valid ? 'the plan is valid.' : 'the plan has ' + errors.length + (errors.length === 1 ? ' finding.' : ' findings.')),
    errors.length ? findingsTable(errors) : null,
    v.estimates ? estimatesView(v.estimates) : null,
  );
}

function estimatesView(e) {
  const path = e.critical_path || { steps: [], duration_ms: 0 };
  return h(
    'dl',
    { class: 'kv' },
    h('dt', null, 'Steps'),
    h('dd', null, e.step_count),
    h('dt', null, 'Critical path'),
    h('dd', null, h('span', { class: 'mono' }, (path.steps || []).join(' \u2192 ') || '\u2014'), ' (~' + fmtMs(path.duration_ms) + ')'),
    h('dt', null, 'Max width'),
    h('dd', null, e.max_width),
    h('dt', null, 'Estimated tokens'),
    h('dd', null, e.estimated_tokens),
  );
}

function initNewRun() {
  resetDemo();
  $('validate-btn').addEventListener('click', () => void validateNewRun());
  $('run-btn').addEventListener('click', () => void startNewRun());
  $('reset-demo').addEventListener('click', resetDemo);
}
`;
