/** Caps request bodies so one request cannot make the Worker buffer an arbitrary amount. */
import { bodyLimit as honoBodyLimit } from 'hono/body-limit';
import type { MiddlewareHandler } from 'hono';
import { jsonError } from '../errors';
import { unreadableBody } from './unreadable-body';

/** The largest request body accepted: 5 MiB. Plans are far smaller; this only stops abuse. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/**
 * `hono/body-limit` (checks `Content-Length`, and counts streamed bodies that have none) answering
 * with `413 payload_too_large` in the API's envelope, and `400` for a body that breaks off mid-read.
 * @example app.use('*', bodyLimit())
 */
export function bodyLimit({ maxBytes = MAX_BODY_BYTES }: { maxBytes?: number } = {}): MiddlewareHandler {
  const limit = honoBodyLimit({
    maxSize: maxBytes,
    onError: (c) =>
      jsonError(c, 'payload_too_large', `Request body is larger than the limit of ${maxBytes} bytes`, {
        max_bytes: maxBytes,
      }),
  });
  return async function bodyLimit(c, next) {
    // A body without Content-Length is read here to count it: an upload that breaks off fails that
    // read (not the handlers', which Hono answers itself).
    let passed = false;
    try {
      return await limit(c, () => {
        passed = true;
        return next();
      });
    } catch (err) {
      if (passed) throw err;
      return unreadableBody(c, err);
    }
  };
}
