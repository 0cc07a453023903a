/**
 * The error envelope (SPEC §6) and the statuses of the API's error codes (from src/error-codes.ts). Every
 * error response the API sends — thrown {@link EdgeplanError}s, validation failures, 404s, auth —
 * goes through this file, so a code always comes back with the same status.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ERROR_CODES, type ApiErrorCode } from '../error-codes';

/**
 * The statuses of the codes an API response can carry — the rows of the one table of codes
 * (src/error-codes.ts) that have a status.
 */
export const ERROR_STATUS = Object.fromEntries(
  Object.entries(ERROR_CODES).flatMap(([code, row]) => (row.status === null ? [] : [[code, row.status]])),
) as { [K in ErrorCode]: (typeof ERROR_CODES)[K]['status'] & ContentfulStatusCode };

/** A code an API response can carry. */
export type ErrorCode = ApiErrorCode;

/** The status an error code is sent with. */
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

/** `{ error: { code, message, details? } }` — the body of every 4xx and 5xx. */
export type ErrorBody = { error: { code: string; message: string; details?: unknown } };

/** Whether `code` is a code an API response can carry. */
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
