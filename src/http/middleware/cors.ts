/**
 * CORS from `CORS_ORIGINS` (SPEC §8): a comma-separated list of origins (`*` for any) that may call
 * the API from a browser. Unset or empty, no CORS headers are sent and browsers keep other origins
 * out. Registered before auth, so a preflight (which carries no `Authorization`) is answered.
 */
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
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
    if (!c.env.CORS_ORIGINS) return next();
    const origins = parseOrigins(c.env.CORS_ORIGINS);
    if (origins.length === 0) return next();
    return corsFor(origins)(c, next);
  };
}
