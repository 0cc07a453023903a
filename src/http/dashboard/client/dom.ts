/**
 * Browser code (a string, run in the page): DOM helpers every other part uses. Data only ever
 * reaches the page as text nodes or attribute values — nothing is parsed as HTML.
 */
export const DOM_JS = String.raw`

/** The element with this id; a missing one is a bug in the page, so it throws. */
function $(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error('dashboard: no element #' + id);
  return el;
}

/**
 * Creates an element. attrs: "class", "on<event>" handlers, else attributes (true → present,
 * false/null/undefined → absent). Children: nodes, arrays, or anything else as a text node.
 */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = String(v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  appendAll(el, children);
  return el;
}

function appendAll(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) appendAll(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces an element's content with the given node (or nothing). */
function show(el, node) {
  el.replaceChildren();
  if (node) el.append(node);
}

function setText(el, text) {
  const s = String(text);
  if (el.textContent !== s) el.textContent = s;
}

/** Pretty JSON for a <pre>; never throws (cycles cannot come from JSON, but be safe). */
function pretty(v) {
  if (v === undefined) return '(none)';
  try {
    return JSON.stringify(v, null, 2);
  } catch (e) {
    return String(v);
  }
}

/** One-line JSON, cut to max characters. */
function preview(v, max) {
  let s;
  try {
    s = JSON.stringify(v);
  } catch (e) {
    s = String(v);
  }
  if (s === undefined) s = 'undefined';
  return s.length > max ? s.slice(0, max - 1) + '\u2026' : s;
}

function fmtDate(iso) {
  if (!iso) return '\u2014';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString();
}

function fmtClock(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toLocaleTimeString([], { hour12: false }) + '.' + String(d.getMilliseconds()).padStart(3, '0');
}

function fmtMs(ms) {
  if (typeof ms !== 'number') return '\u2014';
  if (ms < 1000) return Math.round(ms) + ' ms';
  return (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + ' s';
}

/** A status as text in a coloured badge (the colour is never the only cue). */
function badge(status) {
  return h('span', { class: 'badge s-' + String(status).replace(/[^a-z_]/g, '') }, status || 'unknown');
}

/** "steps.a[0].x" from a finding's path array. */
function fmtPath(path) {
  if (!Array.isArray(path) || path.length === 0) return '';
  return path.map((p, i) => (typeof p === 'number' ? '[' + p + ']' : (i ? '.' : '') + p)).join('');
}

let uid = 0;
function nextId(prefix) {
  uid += 1;
  return prefix + '-' + uid;
}
`;
