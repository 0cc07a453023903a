/**
 * Runs a middleware only when some route (not just middleware) matches the request, so a request
 * to an unknown path is a 404 whatever its body — not a 413 or 415 about a body nobody would read.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';

/**
 * Whether a handler registered for this method matches. `app.use` entries have the method `ALL`;
 * so do `app.all` routes, which this counts as unmatched (their bodies then skip the checks).
 */
export function hasRoute(c: Context): boolean {
  return matchedRoutes(c).some((r) => r.method !== 'ALL');
}

/** Methods whose requests carry no body: the body checks have nothing to look at. */
const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * For body checks: a GET (every poll of a run's status) skips both the middleware and the route
 * lookup it would cost.
 * @example app.use('*', whenRouted(jsonBody()))
 */
export function whenRouted<M extends MiddlewareHandler>(middleware: M): MiddlewareHandler {
  return async function whenRouted(c, next) {
    return !BODYLESS.has(c.req.method) && hasRoute(c) ? middleware(c, next) : next();
  };
}
