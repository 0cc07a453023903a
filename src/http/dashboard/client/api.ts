/**
 * Browser code: the API client (bearer token from localStorage) and how its errors are shown. Every
 * call resolves — to `{ok: true, status, data}` or `{ok: false, status, error: {code, message,
 * details}}` — so callers render failures instead of losing them in a rejected promise.
 */
export const API_JS = String.raw`
const TOKEN_KEY = 'edgeplan.apiToken';

function getToken() {
  try {
    return localStorage.getItem(TOKEN_KEY) || '';
  } catch (e) {
    return '';
  }
}

function setToken(token) {
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  } catch (e) {
    // Storage disabled: the token lasts until the page is reloaded.
  }
}

async function api(method, path, body) {
  const headers = { Accept: 'application/json' };
  const token = getToken();
  if (token) headers.Authorization = 'Bearer ' + token;
  const init = { method, headers, cache: 'no-store' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    const why = e && e.message ? e.message : String(e);
    return { ok: false, status: 0, error: { code: 'network_error', message: method + ' ' + path + ' failed: ' + why } };
  }
  const text = await res.text().catch(() => '');
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (e) {
    data = null;
  }
  if (res.ok) return { ok: true, status: res.status, data };
  const err = data && typeof data.error === 'object' && data.error ? data.error : null;
  return {
    ok: false,
    status: res.status,
    error: {
      code: err && typeof err.code === 'string' ? err.code : 'http_' + res.status,
      message:
        err && typeof err.message === 'string'
          ? err.message
          : method + ' ' + path + ' answered ' + res.status + ' ' + res.statusText + (text ? ': ' + text.slice(0, 300) : ''),
      details: err ? err.details : undefined,
    },
  };
}

/** An alert naming the error code, the HTTP status and the message, with details on demand. */
function errorBox(error, status, context) {
  let hint = '';
  if (error.code === 'unauthorized') {
    hint = getToken() ? ' Check the API token above.' : ' This server requires a token: enter it under "API token" above.';
  }
  const findings = error.details && Array.isArray(error.details.errors) ? error.details.errors : null;
  return h(
    'div',
    { class: 'error', role: 'alert' },
    h(
      'p',
      null,
      context ? h('strong', null, context + ' failed: ') : null,
      h('code', { class: 'code' }, error.code),
      status ? ' (HTTP ' + status + ') ' : ' ',
      error.message,
      hint,
    ),
    findings ? findingsTable(findings) : null,
    error.details !== undefined && !findings
      ? h('details', null, h('summary', null, 'Details'), h('pre', null, pretty(error.details)))
      : null,
  );
}

/** Validation findings (SPEC §2) as a table: code, where (step and path), message. */
function findingsTable(findings) {
  return h(
    'div',
    { class: 'scroll' },
    h(
      'table',
      { class: 'findings' },
      h('caption', null, findings.length + (findings.length === 1 ? ' finding' : ' findings')),
      h(
        'thead',
        null,
        h('tr', null, ['Code', 'Where', 'Message'].map((t) => h('th', { scope: 'col' }, t))),
      ),
      h(
        'tbody',
        null,
        findings.map((f) =>
          h(
            'tr',
            null,
            h('td', null, h('code', { class: 'code' }, f.code)),
            h('td', { class: 'mono' }, [f.step_id ? 'step ' + f.step_id : '', fmtPath(f.path)].filter(Boolean).join(': ') || '\u2014'),
            h('td', { class: 'msg' }, f.message),
          ),
        ),
      ),
    ),
  );
}
`;
