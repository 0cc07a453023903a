/**
 * The app's `onError` and `notFound`: whatever goes wrong, the client gets the error envelope.
 * Deliberate errors keep their code and message; anything else is a 500 with a generic message (the
 * details go to the log, not to the client).
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { isUnreadableRun } from '../durable/row-schemas';
import { isNewerFormatRun, NEWER_FORMAT_RETRY_AFTER_S } from '../durable/storage-format';
import { EdgeplanError } from '../errors';
import { RUN_ID_PATTERN } from '../plan/model';
import { errorBody, isErrorCode, jsonError, statusForCode } from './errors';
import { misconfiguration } from './misconfiguration';
import { log } from '../log';
import { echoed } from './echoed';

/** Codes for the statuses Hono's own middleware throws `HTTPException`s with. */
const CODE_FOR_STATUS: Partial<Record<number, string>> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

/**
 * `app.onError`: {@link EdgeplanError} → its code's status; Hono's `HTTPException` → the envelope
 * with a code for its status; a run whose stored rows this release cannot read → `500 run_unreadable`
 * saying so, and one a newer release wrote → `503 run_newer_format` (with `Retry-After`); anything else → `500 internal`
 * (or `misconfigured`), logged.
 */
export function handleError(err: Error, c: Context): Response {
  if (err instanceof EdgeplanError) {
    if (!isErrorCode(err.code))
      log('unknown_error_code', `Error code "${err.code}" has no row in ERROR_STATUS`, { error: err });
    return c.json({ error: err.toJSON() }, statusForCode(err.code));
  }
  if (err instanceof HTTPException) return fromHttpException(err, c);
  const where = { ...runOf(c.req.path), method: c.req.method, path: c.req.path };
  // Not the caller's fault and not a bug: the run is there, for the release that wrote it. Ask again.
  if (isNewerFormatRun(err)) {
    log('run_newer_format', err.message, { ...where, code: 'run_newer_format' });
    c.header('Retry-After', String(NEWER_FORMAT_RETRY_AFTER_S));
    return jsonError(c, 'run_newer_format', err.message);
  }
  const unreadable = isUnreadableRun(err);
  const fix = unreadable ? null : misconfiguration(err, c.env as object | undefined);
  const code = unreadable ? 'run_unreadable' : fix ? 'misconfigured' : 'internal';
  log('unhandled_error', `Unhandled error on ${c.req.method} ${c.req.path} (answered ${code})`, {
    ...where,
    code,
    error: err,
  });
  if (unreadable) return jsonError(c, 'run_unreadable', err.message);
  if (fix) return jsonError(c, 'misconfigured', fix);
  return jsonError(c, 'internal', 'Internal error: the request could not be completed. It has been logged.');
}

/**
 * The run a request was about (`/v1/runs/<id>/…`), as the log's `run_id`: an operator follows a run by
 * filtering on it (docs/operating.md), and its refusals — `run_newer_format`, `run_unreadable` — are
 * the lines that matter most then.
 */
function runOf(path: string): { run_id?: string } {
  const id = /^\/v1\/runs\/([^/]+)/.exec(path)?.[1];
  return id !== undefined && RUN_ID_PATTERN.test(id) ? { run_id: id } : {};
}

/**
 * `app.notFound`: `405 method_not_allowed` with `Allow` when the path is a route for other methods,
 * else `404 not_found` naming the method and path. `routes` are the app's (`app.routes`).
 */
export function notFoundFor(routes: readonly { method: string; path: string }[]) {
  const patterns = routes
    .filter((r) => r.method !== 'ALL')
    .map((r) => ({ method: r.method, pattern: routePattern(r.path) }));
  return function notFound(c: Context): Response {
    const allowed = new Set(patterns.filter((r) => r.pattern.test(c.req.path)).map((r) => r.method));
    if (allowed.has('GET')) allowed.add('HEAD');
    if (allowed.size > 0) {
      const allow = [...allowed].sort().join(', ');
      c.header('Allow', allow);
      return jsonError(c, 'method_not_allowed', `${echoed(c.req.path)} takes ${allow}, not ${c.req.method}`, {
        allow: [...allowed].sort(),
      });
    }
    // `/health//`: Hono drops one trailing slash (strict: false), not two; no route has empty segments.
    const raw = new URL(c.req.url).pathname;
    const tidy = raw.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1');
    const routed = (p: string) => patterns.some((r) => r.pattern.test(p));
    const near = tidy !== raw && routed(tidy) ? tidy : nearRoute(tidy, routed);
    const hint = near === null ? '' : ` (did you mean ${echoed(near)}?)`;
    return jsonError(c, 'not_found', `No route for ${c.req.method} ${echoed(c.req.path)}${hint}`);
  };
}

/**
 * The route a path likely meant when a base URL was written one segment off: a prefix too many
 * (`/v1/mcp` for `/mcp`, `/api/v1/runs` for `/v1/runs`) or `/v1` left out (`/runs`).
 * @example nearRoute('/v1/mcp', (p) => p === '/mcp') // "/mcp"
 */
function nearRoute(path: string, routed: (p: string) => boolean): string | null {
  const rest = path.replace(/^\/[^/]+/, '');
  if (rest !== '' && rest !== path && routed(rest)) return rest;
  if (!path.startsWith('/v1/') && path !== '/v1' && routed(`/v1${path}`)) return `/v1${path}`;
  return null;
}

/**
 * A Hono route path (`/v1/runs/:id/ws`, `/app/*`) as a regular expression over request paths as
 * `c.req.path` gives them: with one trailing slash already dropped (strict: false), so a path that
 * still ends in one (`/health//`) is no route's.
 */
function routePattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((seg) =>
      seg === '*' ? '.*' : seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^${source}$`);
}

function fromHttpException(err: HTTPException, c: Context): Response {
  const status = err.status;
  // Hono's validator; normally unreachable, as the jsonBody middleware parses every body first.
  if (err.message === 'Malformed JSON in request body') {
    return jsonError(c, 'invalid_json', 'Request body is not valid JSON');
  }
  const code = CODE_FOR_STATUS[status] ?? (status >= 500 ? 'internal' : 'invalid_request');
  const message = err.message || err.getResponse().statusText || `HTTP ${status}`;
  const res = c.json(errorBody(code, message), status);
  const challenge = err.res?.headers.get('WWW-Authenticate');
  if (challenge) res.headers.set('WWW-Authenticate', challenge);
  return res;
}
