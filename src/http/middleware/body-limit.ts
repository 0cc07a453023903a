/** Caps request bodies so one request cannot make the Worker buffer an arbitrary amount. */
import { bodyLimit as honoBodyLimit } from 'hono/body-limit';
import type { MiddlewareHandler } from 'hono';
import { jsonError } from '../errors';

/** The largest request body accepted: 5 MiB. Plans are far smaller; this only stops abuse. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/**
 * `hono/body-limit` (checks `Content-Length`, and counts streamed bodies that have none) answering
 * with `413 payload_too_large` in the API's envelope.
 * @example app.use('*', bodyLimit())
 */
export function bodyLimit({ maxBytes = MAX_BODY_BYTES }: { maxBytes?: number } = {}): MiddlewareHandler {
  return honoBodyLimit({
    maxSize: maxBytes,
    onError: (c) =>
      jsonError(c, 'payload_too_large', `Request body is larger than the limit of ${maxBytes} bytes`, {
        max_bytes: maxBytes,
      }),
  });
}
