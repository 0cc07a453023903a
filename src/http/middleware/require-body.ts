/**
 * For routes that cannot do without a body: an empty one (the jsonBody middleware makes a body of
 * only whitespace none) is `400 invalid_request` saying what to send, rather than `{}` reaching the
 * handler or a parse of nothing failing there.
 */
import type { MiddlewareHandler } from 'hono';
import { jsonError } from '../errors';

/**
 * `fields` completes "send …": the fields the route needs and the optional ones.
 * @example createRoute({ …, middleware: [requireBody('{"reason": "…"}')] })
 */
export function requireBody(fields: string): MiddlewareHandler {
  return async function requireBody(c, next) {
    const text = c.req.raw.body === null ? '' : await c.req.text();
    if (text.trim() !== '') return next();
    return jsonError(c, 'invalid_request', `This request needs a JSON body: send ${fields}`, {
      body: 'missing',
    });
  };
}
