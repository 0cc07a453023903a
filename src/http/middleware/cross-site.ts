/**
 * Refuses what a page on another site makes a browser send with credentials it did not choose: a
 * request that changes something (any method but `GET`, `HEAD`, `OPTIONS`), or a WebSocket upgrade,
 * that the browser marks `Sec-Fetch-Site: cross-site` or `same-site`, from an origin `CORS_ORIGINS`
 * does not name, carrying neither `Authorization` nor a bearer subprotocol. Such a request rides on
 * what the browser holds for this Worker — the Cloudflare Access cookie (Access adds its
 * `Cf-Access-Jwt-Assertion` to whatever the cookie came with), or a local `ALLOW_ANONYMOUS` server's
 * place on the network — and needs no preflight when its body is empty: a form of no fields, or
 * `fetch(url, {method: 'POST', mode: 'no-cors'})`, cancelled or retried a run. Clients that are not
 * browsers send no `Sec-Fetch-Site`; the dashboard and the approval page are same-origin.
 */
import type { MiddlewareHandler } from 'hono';
import { jsonError } from '../errors';
import type { AppEnv } from '../types';
import { parseOrigins } from './cors';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * @example app.use('/v1/*', crossSite()) // a cross-site POST /v1/runs/{id}/cancel without a token → 403
 */
export function crossSite(): MiddlewareHandler<AppEnv> {
  return async function crossSite(c, next) {
    const site = c.req.header('Sec-Fetch-Site');
    if (site !== 'cross-site' && site !== 'same-site') return next();
    const upgrade = c.req.header('Upgrade')?.toLowerCase() === 'websocket';
    if (READS.has(c.req.method) && !upgrade) return next();
    // A credential the page itself sent is no ambient one: CORS (or the token) decides.
    if (c.req.header('Authorization') !== undefined) return next();
    const protocols = c.req.header('Sec-WebSocket-Protocol') ?? '';
    if (protocols.split(',').some((p) => p.trim().startsWith('edgeplan.bearer.'))) return next();
    const origin = c.req.header('Origin') ?? 'null';
    const allowed = parseOrigins(c.env.CORS_ORIGINS);
    if (allowed.includes('*') || allowed.includes(origin)) return next();
    return jsonError(
      c,
      'cross_site_request',
      `A page on ${origin} asked your browser to send ${c.req.method} ${c.req.path} with no token of its own, so it would have acted with your sign-in (a Cloudflare Access cookie, or a local server's ALLOW_ANONYMOUS). ` +
        'Send "Authorization: Bearer <API_TOKEN>" from that page, or add its origin to CORS_ORIGINS.',
      { origin },
    );
  };
}
