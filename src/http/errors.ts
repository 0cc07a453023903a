/**
 * The error envelope (SPEC §6) and the one table that maps error codes to HTTP statuses. Every
 * error response the API sends — thrown {@link EdgeplanError}s, validation failures, 404s, auth —
 * goes through this file, so a code always comes back with the same status.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** Stable error codes and their statuses. Add a row here when a route needs a new code. */
export const ERROR_STATUS = {
  /** The request is well-formed JSON but fails the route's schema (zod issues in `details`). */
  invalid_request: 400,
  /** The body is not parseable JSON. */
  invalid_json: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  /** The resource exists but is not in a state that allows this (e.g. approving a finished run). */
  conflict: 409,
  /** A link that worked once and no longer does (used or expired approval link). */
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  /** A plan with validation findings where a valid one is required (`POST /v1/runs`). */
  invalid_plan: 422,
  /** A goal was sent but no planner can plan it (no LLM configured). */
  planning_unavailable: 422,
  /** Every model, repair and the rule planner failed to produce a valid plan (trace in `details`). */
  planning_failed: 422,
  /** A value asked for (`GET /v1/runs/:id/values`) is larger than one response carries. */
  value_too_large: 422,
  /** `GET /v1/runs/:id/ws` without a WebSocket upgrade. */
  upgrade_required: 426,
  rate_limited: 429,
  internal: 500,
} as const satisfies Record<string, ContentfulStatusCode>;

/** A code from {@link ERROR_STATUS}. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** The status an error code is sent with. */
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

/** `{ error: { code, message, details? } }` — the body of every 4xx and 5xx. */
export type ErrorBody = { error: { code: string; message: string; details?: unknown } };

/** Whether `code` has a row in {@link ERROR_STATUS}. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, code);
}

/**
 * The status for any code, including ones thrown as plain strings by other layers. An unmapped code
 * is a missing table row, i.e. our bug, so it is a 500 (and the caller logs it).
 */
export function statusForCode(code: string): ContentfulStatusCode {
  return isErrorCode(code) ? ERROR_STATUS[code] : 500;
}

/** Builds the envelope; `details` is left out when undefined. */
export function errorBody(code: string, message: string, details?: unknown): ErrorBody {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } };
}

/**
 * Responds with the error envelope and the code's status from {@link ERROR_STATUS}. Typed so an
 * `app.openapi` handler that declares that status (see `errorResponses`) may return it.
 * @example
 * if (!run) return jsonError(c, 'not_found', `No run ${id}`);
 */
export function jsonError<C extends ErrorCode>(c: Context, code: C, message: string, details?: unknown) {
  return c.json(errorBody(code, message, details), ERROR_STATUS[code]);
}
