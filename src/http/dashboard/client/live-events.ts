/**
 * Browser code: the live event log. Events come over the WebSocket `/v1/runs/:id/ws?after=<seq>`;
 * when it drops, it is reopened with exponential backoff from the last seq seen, so the server's
 * backlog fills the gap and nothing is lost or shown twice (events are taken strictly in seq order).
 *
 * Browsers cannot put an Authorization header on a WebSocket, so with an API token set the log polls
 * `GET /v1/runs/:id/events?after=<seq>` with the header instead — the page says so next to the token.
 */
export const LIVE_EVENTS_JS = String.raw`
const LOG_MAX = 1000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 15000;
const POLL_MS = 1000;
const live = { runId: null, ws: null, lastSeq: 0, count: 0, attempt: 0, timer: 0, stopped: true, pending: [], flushTimer: 0 };

function startLive(runId) {
  stopLive();
  Object.assign(live, { runId, lastSeq: 0, count: 0, attempt: 0, stopped: false, pending: [] });
  $('event-log').replaceChildren();
  setText($('event-count'), '');
  if (getToken()) void poll();
  else connect();
}

function stopLive() {
  live.stopped = true;
  live.runId = null;
  clearTimeout(live.timer);
  const ws = live.ws;
  live.ws = null;
  if (ws) {
    ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
    try {
      ws.close(1000, 'dashboard left the run');
    } catch (e) {
      // already closing
    }
  }
}

function setLiveStatus(state, text) {
  const el = $('live-status');
  el.className = 'live live-' + state;
  setText(el, text);
  $('live-reconnect').hidden = state !== 'retrying' || live.stopped || Boolean(getToken());
}

function connect() {
  if (live.stopped) return;
  const runId = live.runId;
  const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/v1/runs/' + encodeURIComponent(runId) + '/ws?after=' + live.lastSeq;
  setLiveStatus('connecting', 'Connecting (WebSocket, after seq ' + live.lastSeq + ')\u2026');
  let ws;
  try {
    ws = new WebSocket(url);
  } catch (e) {
    reconnectLater('could not open: ' + (e && e.message ? e.message : e));
    return;
  }
  live.ws = ws;
  const openedAt = Date.now();
  ws.onopen = () => setLiveStatus('live', 'Live (WebSocket)');
  ws.onmessage = (m) => {
    let event;
    try {
      event = JSON.parse(m.data);
    } catch (e) {
      return;
    }
    live.attempt = 0;
    if (!takeEvent(event)) ws.close(4000, 'gap in seq');
  };
  ws.onclose = (ev) => {
    if (live.ws !== ws) return;
    live.ws = null;
    // A socket that lived a while was healthy: start the backoff over.
    if (Date.now() - openedAt > 10000) live.attempt = 0;
    reconnectLater('closed, code ' + ev.code + (ev.reason ? ' ' + ev.reason : ''));
  };
}

function reconnectLater(why) {
  if (live.stopped) return;
  const delay = Math.round(Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** live.attempt) * (0.8 + Math.random() * 0.4));
  live.attempt += 1;
  setLiveStatus('retrying', 'Disconnected (' + why + '). Reconnecting in ' + (delay / 1000).toFixed(1) + ' s from seq ' + live.lastSeq + ' (attempt ' + live.attempt + ')');
  clearTimeout(live.timer);
  live.timer = setTimeout(connect, delay);
}

/** Reconnects at once when the browser comes back online or the user asks. */
function reconnectNow() {
  if (live.stopped || live.ws || getToken()) return;
  clearTimeout(live.timer);
  live.attempt = 0;
  connect();
}

async function poll() {
  if (live.stopped) return;
  const runId = live.runId;
  const r = await api('GET', '/v1/runs/' + encodeURIComponent(runId) + '/events?after=' + live.lastSeq + '&limit=500');
  if (live.stopped || runId !== live.runId) return;
  let delay = POLL_MS;
  if (r.ok) {
    live.attempt = 0;
    const events = Array.isArray(r.data.events) ? r.data.events : [];
    for (const e of events) if (!takeEvent(e)) break;
    setLiveStatus('live', 'Polling (API token set: see the note at the top)');
    // A page ends at 500 events or about 8 MiB, whichever comes first: has_more says which.
    if (r.data.has_more === true || events.length === 500) delay = 0;
    // A finished run only changes again if someone retries it: look less often.
    else if (view.snap && TERMINAL.has(view.snap.status)) delay = POLL_MS * 5;
  } else {
    live.attempt += 1;
    delay = Math.min(BACKOFF_MAX_MS, POLL_MS * 2 ** live.attempt);
    setLiveStatus('retrying', 'Polling failed (' + r.error.code + ': ' + r.error.message + '). Retrying in ' + (delay / 1000).toFixed(1) + ' s from seq ' + live.lastSeq);
  }
  live.timer = setTimeout(() => void poll(), delay);
}

/** Takes the next event in seq order; false on a gap (the caller re-reads from lastSeq). */
function takeEvent(e) {
  if (!e || typeof e.seq !== 'number') return true;
  if (e.seq <= live.lastSeq) return true;
  if (e.seq !== live.lastSeq + 1) return false;
  live.lastSeq = e.seq;
  live.pending.push(e);
  if (!live.flushTimer) live.flushTimer = setTimeout(flushEvents, 30);
  scheduleRefresh();
  return true;
}

function flushEvents() {
  live.flushTimer = 0;
  const log = $('event-log');
  const batch = live.pending.splice(0);
  if (batch.length === 0) return;
  const frag = document.createDocumentFragment();
  for (const e of batch.slice(-LOG_MAX)) frag.append(eventItem(e));
  log.append(frag);
  live.count += batch.length;
  while (log.childElementCount > LOG_MAX) log.firstElementChild.remove();
  const shown = log.childElementCount;
  setText($('event-count'), live.count + ' event' + (live.count === 1 ? '' : 's') + (shown < live.count ? ' (showing the last ' + shown + ')' : '') + ' \u00b7 last seq ' + live.lastSeq);
  if ($('log-follow').checked) log.scrollTop = log.scrollHeight;
}

function eventItem(e) {
  const ref = e.references || {};
  const failed = (e.event_type === 'ToolReturned' && e.payload && e.payload.success === false) || e.event_type === 'StepFailed' || (e.event_type === 'RunTerminated' && e.payload && e.payload.status !== 'completed');
  return h(
    'li',
    { class: 'ev' + (failed ? ' ev-bad' : ''), 'data-seq': e.seq },
    h(
      'details',
      null,
      h(
        'summary',
        null,
        h('span', { class: 'seq' }, '#' + e.seq),
        h('time', { datetime: e.timestamp, title: e.timestamp }, fmtClock(e.timestamp)),
        h('span', { class: 'etype' }, e.event_type),
        ref.step_id ? h('span', { class: 'estep mono' }, ref.step_id) : null,
        h('span', { class: 'esum' }, summarize(e)),
      ),
      h('pre', null, pretty(e)),
    ),
  );
}

/** One line about an event, from its payload. */
function summarize(e) {
  const p = e.payload || {};
  const err = (x) => (x ? x.code + ': ' + x.message : '');
  switch (e.event_type) {
    case 'RunCreated':
      return p.goal || '';
    case 'PlanAuthored':
    case 'PlanUpdated':
      return p.plan ? 'plan ' + p.plan.id + ' v' + p.plan.version + ', ' + (p.plan.steps || []).length + ' steps' + (p.reason ? ' \u2014 ' + p.reason : '') : '';
    case 'PlanValidated':
      return p.estimates ? 'critical path ' + p.estimates.critical_path.steps.join(' \u2192 ') + ' (~' + fmtMs(p.estimates.critical_path.duration_ms) + ')' : 'valid';
    case 'StepScheduled':
      return 'attempt ' + p.attempt + ' of ' + p.action + (p.fallback ? ' (fallback)' : '') + ' via ' + p.dispatch;
    case 'ToolInvoked':
      return p.tool + ' attempt ' + p.attempt + ' ' + preview(p.parameters, 80);
    case 'ToolReturned':
      return (p.success ? 'ok ' : 'FAILED ') + fmtMs(p.latency_ms) + (p.cached ? ' (cached)' : '') + ' ' + (p.success ? preview(p.output, 100) : err(p.error));
    case 'StepRetried':
      return 'retry in ' + fmtMs(p.delay_ms) + ' after ' + err(p.error);
    case 'StepFailed':
      return err(p.error) + (p.handled ? ' (handled by an error branch)' : '');
    case 'StepSkipped':
      return p.reason + (p.detail ? ': ' + p.detail : '');
    case 'RunTerminated':
      return p.status + (p.reason ? ' \u2014 ' + p.reason : '') + (p.error ? ' \u2014 ' + err(p.error) : '');
    default:
      return Object.keys(p).length ? preview(p, 120) : '';
  }
}

function initLiveEvents() {
  window.addEventListener('online', reconnectNow);
  $('live-reconnect').addEventListener('click', reconnectNow);
}
`;
