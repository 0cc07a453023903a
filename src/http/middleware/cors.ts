/**
 * CORS from `CORS_ORIGINS` (SPEC §8): a comma-separated list of origins (`*` for any) that may call
 * the API from a browser. Unset or empty, no CORS headers are sent and browsers keep other origins
 * out. Registered before auth, so a preflight (which carries no `Authorization`) is answered.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { echoed } from '../echoed';
import { jsonError } from '../errors';
import type { AppEnv } from '../types';

/** The origins of a `CORS_ORIGINS` value: trimmed, empty entries and trailing slashes dropped. */
export function parseOrigins(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((origin) => origin.trim().replace(/\/+$/, ''))
    .filter((origin) => origin !== '');
}

/** One hono `cors` per distinct `CORS_ORIGINS` value (bindings arrive per request). */
const byValue = new Map<string, MiddlewareHandler>();

function corsFor(origins: string[]): MiddlewareHandler {
  const key = origins.join(',');
  let middleware = byValue.get(key);
  if (!middleware) {
    middleware = cors({
      origin: origins.includes('*') ? '*' : origins,
      allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
      // Idempotency-Key: edgeplan/client's createRun sends one, so a page on another origin must be let.
      allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
      exposeHeaders: ['Retry-After', 'WWW-Authenticate', 'Idempotent-Replayed'],
      maxAge: 600,
    });
    byValue.set(key, middleware);
  }
  return middleware;
}

/**
 * @example app.use('*', corsFromEnv()) // CORS_ORIGINS="https://app.example.com,https://admin.example.com"
 */
export function corsFromEnv(): MiddlewareHandler<AppEnv> {
  return async function corsFromEnv(c, next) {
    const origins = parseOrigins(c.env.CORS_ORIGINS);
    const refused = refusedPreflight(c, origins);
    if (refused) return refused;
    if (origins.length === 0) return next();
    return corsFor(origins)(c, next);
  };
}

/**
 * A browser's preflight from an origin `origins` does not allow, refused saying what to set. It is
 * answered here, before the token is asked for: a preflight never carries one, and a `401` would send
 * the page's developer after their token. null: not such a preflight.
 */
function refusedPreflight(c: Context<AppEnv>, origins: string[]): Response | null {
  const origin = c.req.header('Origin');
  if (c.req.method !== 'OPTIONS' || !c.req.header('Access-Control-Request-Method') || origin === undefined)
    return null;
  if (origins.includes('*') || origins.includes(origin)) return null;
  const now =
    origins.length === 0 ? 'CORS_ORIGINS is not set' : `CORS_ORIGINS does not name ${echoed(origin)}`;
  return jsonError(
    c,
    'cross_site_request',
    `A page on ${echoed(origin)} asked your browser whether it may call ${c.req.path} (a CORS preflight), and ${now}: ` +
      'add that origin to CORS_ORIGINS (comma-separated; * for any) to let its pages call the API with their token.',
    { origin },
  );
}
