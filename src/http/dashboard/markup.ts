/**
 * The dashboard's static markup: every panel's skeleton with its labels, headings and table
 * headers. The script fills it in; nothing here depends on data.
 */
import { RunStatus } from '../../plan/model';

const COUNTS = ['total', 'pending', 'blocked', 'running', 'completed', 'failed', 'skipped'];

const statusOptions = Object.values(RunStatus)
  .map((s) => `<option value="${s}">${s.replaceAll('_', ' ')}</option>`)
  .join('');

const countItems = COUNTS.map((k) => `<div><dt>${k}</dt><dd id="count-${k}">0</dd></div>`).join('');

const HEADER = `
<a class="skip" href="#run-panel">Skip to the run view</a>
<header class="top">
  <h1>edgeplan <span class="muted">dashboard</span></h1>
  <form id="token-form" class="token" autocomplete="off">
    <label for="api-token">API token</label>
    <input id="api-token" type="password" spellcheck="false" placeholder="optional" aria-describedby="token-state">
    <button type="submit">Save</button>
    <button type="button" id="token-clear">Clear</button>
    <span id="token-state" class="muted small"></span>
  </form>
  <nav aria-label="API"><a href="/openapi.json">OpenAPI</a> <a href="/health">Health</a></nav>
</header>
<p id="token-note" class="note" role="note" hidden>
  A token is set and sent as <code>Authorization: Bearer …</code>. Browsers cannot send that header on a
  WebSocket, so the live event log polls <code>GET /v1/runs/:id/events</code> about once a second instead of
  using <code>/v1/runs/:id/ws</code>.
</p>`;

const RUNS = `
<section id="runs-panel" class="panel" aria-labelledby="runs-h">
  <h2 id="runs-h">Runs</h2>
  <div class="toolbar">
    <label for="runs-status">Status</label>
    <select id="runs-status"><option value="">all</option>${statusOptions}</select>
    <button type="button" id="runs-refresh">Refresh</button>
    <label class="check"><input type="checkbox" id="runs-auto" checked> Auto-refresh (5 s)</label>
  </div>
  <div id="runs-error"></div>
  <div class="scroll">
    <table class="runs">
      <caption class="sr-only">Runs, newest first</caption>
      <thead><tr><th scope="col">Run and goal</th><th scope="col">Status</th><th scope="col" class="num">Steps</th><th scope="col">Created</th></tr></thead>
      <tbody id="runs-body"><tr><td colspan="4" class="empty">Loading…</td></tr></tbody>
    </table>
  </div>
  <div class="pager">
    <button type="button" id="runs-prev" disabled>← Newer</button>
    <span id="runs-page">Page 1</span>
    <button type="button" id="runs-next" disabled>Older →</button>
    <span id="runs-updated" class="muted small"></span>
  </div>
</section>`;

const NEW_RUN = `
<section id="new-panel" class="panel" aria-labelledby="new-h">
  <h2 id="new-h">New run</h2>
  <label for="plan-json">Plan (JSON)</label>
  <textarea id="plan-json" rows="18" spellcheck="false" autocomplete="off"></textarea>
  <label for="config-json">Config (JSON, optional)</label>
  <textarea id="config-json" rows="4" spellcheck="false" autocomplete="off"></textarea>
  <label for="input-json">Input (JSON, optional: read by <code>{{ input.… }}</code>)</label>
  <textarea id="input-json" rows="2" spellcheck="false" autocomplete="off"></textarea>
  <div class="toolbar">
    <button type="button" id="validate-btn">Validate</button>
    <button type="button" id="run-btn" class="primary">Run</button>
    <button type="button" id="reset-demo">Reset to demo plan</button>
  </div>
  <div id="new-run-result" aria-live="polite"></div>
</section>`;

const TOOLS = `
<section id="tools-panel" class="panel" aria-labelledby="tools-h">
  <h2 id="tools-h">Tools <span id="tools-count" class="muted"></span></h2>
  <ul id="tools-list" class="tools"></ul>
</section>`;

const RUN = `
<section id="run-panel" class="panel run" aria-labelledby="run-h">
  <h2 id="run-h" tabindex="-1">Run</h2>
  <p id="run-empty" class="muted">Select a run in the list, or start one under “New run”.</p>
  <div id="run-detail" hidden>
    <div class="run-head">
      <div class="run-title">
        <code id="run-id" class="mono"></code> <span id="run-status"></span>
        <p id="run-goal"></p>
      </div>
      <div class="toolbar">
        <label for="retry-step" class="sr-only">Steps to retry</label>
        <select id="retry-step"><option value="">all failed steps</option></select>
        <button type="button" id="retry-btn">Retry</button>
        <button type="button" id="cancel-btn" class="danger">Cancel run</button>
        <button type="button" id="run-refresh">Refresh</button>
      </div>
    </div>
    <div id="run-action-result" aria-live="polite"></div>
    <div id="run-error"></div>
    <div class="progress">
      <progress id="run-progress" max="1" value="0" aria-labelledby="run-progress-text"></progress>
      <span id="run-progress-text"></span>
    </div>
    <dl class="counts" aria-label="Step counts">${countItems}</dl>
    <dl class="kv meta">
      <dt>Plan</dt><dd id="meta-plan" class="mono"></dd>
      <dt>Revisions</dt><dd id="meta-revisions"></dd>
      <dt>Started</dt><dd id="meta-started"></dd>
      <dt>Completed</dt><dd id="meta-completed"></dd>
      <dt>Duration</dt><dd id="meta-duration"></dd>
      <dt>Tokens</dt><dd id="meta-tokens"></dd>
      <dt>Last seq</dt><dd id="meta-seq"></dd>
    </dl>
    <div id="run-failure"></div>
    <h3 id="steps-h">Steps</h3>
    <div class="scroll">
      <table class="steps" aria-labelledby="steps-h">
        <thead><tr><th scope="col">Step</th><th scope="col">Action</th><th scope="col">Depends on</th><th scope="col">Status</th><th scope="col" class="num">Attempts</th><th scope="col" class="num">Latency</th><th scope="col">Error</th><th scope="col">Result</th></tr></thead>
        <tbody id="steps-body"></tbody>
      </table>
    </div>
    <div id="steps-more"></div>
    <h3>Final output</h3>
    <pre id="run-final"></pre>
    <details id="run-state-box" hidden><summary>State variables</summary><pre id="run-state"></pre></details>
    <h3 id="events-h">Live events</h3>
    <div class="log-bar">
      <span id="live-status" class="live" role="status"></span>
      <button type="button" id="live-reconnect" class="small" hidden>Reconnect now</button>
      <span id="event-count" class="muted small"></span>
      <label class="check"><input type="checkbox" id="log-follow" checked> Follow</label>
    </div>
    <ol id="event-log" class="log" aria-labelledby="events-h" tabindex="0"></ol>
  </div>
</section>`;

/**
 * The `<body>` content before the script. In reading order the run view follows the runs list (so a
 * narrow screen shows it right there); wide screens give it the right-hand column.
 */
export const DASHBOARD_BODY = `${HEADER}
<main class="layout">${RUNS}${RUN}${NEW_RUN}${TOOLS}
</main>`;
