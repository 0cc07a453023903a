/**
 * The answer to a request whose body could not be read in full: the upload ended before the body did
 * (a dropped connection, a malformed chunk, fewer bytes than `Content-Length`). The client's to send
 * again — `400 invalid_request`, not a 500 logged as our bug.
 */
import type { Context } from 'hono';
import { jsonError } from '../errors';

/** @example try { await c.req.arrayBuffer() } catch (err) { return unreadableBody(c, err) } */
export function unreadableBody(c: Context, err: unknown): Response {
  const reason = err instanceof Error ? err.message : String(err);
  return jsonError(
    c,
    'invalid_request',
    `The request body could not be read in full (${reason}): send the whole body again`,
    { body: 'unreadable' },
  );
}
