/**
 * The app's `onError` and `notFound`: whatever goes wrong, the client gets the error envelope.
 * Deliberate errors keep their code and message; anything else is a 500 with a generic message (the
 * details go to the log, not to the client).
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { EdgeplanError } from '../errors';
import { errorBody, isErrorCode, jsonError, statusForCode } from './errors';

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
 * with a code for its status; anything else → `500 internal`, logged.
 */
export function handleError(err: Error, c: Context): Response {
  if (err instanceof EdgeplanError) {
    if (!isErrorCode(err.code)) console.error(`Error code "${err.code}" has no row in ERROR_STATUS`, err);
    return c.json({ error: err.toJSON() }, statusForCode(err.code));
  }
  if (err instanceof HTTPException) return fromHttpException(err, c);
  console.error(`Unhandled error on ${c.req.method} ${c.req.path}:`, err);
  return jsonError(c, 'internal', 'Internal error: the request could not be completed. It has been logged.');
}

/** `app.notFound`: `404 not_found` naming the method and path. */
export function notFound(c: Context): Response {
  return jsonError(c, 'not_found', `No route for ${c.req.method} ${c.req.path}`);
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
