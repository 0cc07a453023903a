/**
 * Bearer-token auth for `/v1/*` (SPEC §6): on when `API_TOKEN` is set, off otherwise (local dev).
 *
 * Written here rather than taken from `hono/bearer-auth` (which does compare in constant time) so
 * every failure is the API's `401 unauthorized` envelope with a `WWW-Authenticate` challenge, and a
 * malformed header is a 401 too instead of a plain-text 400.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { jsonError } from '../errors';
import type { AppEnv } from '../types';

export type BearerAuthOptions = {
  /** The expected token for this request; auth is skipped when it returns undefined or "". */
  token?: (c: Context<AppEnv>) => string | undefined;
  /** The `realm` in the challenge. */
  realm?: string;
};

/**
 * @example app.use('/v1/*', bearerAuth()) // token from env.API_TOKEN
 */
export function bearerAuth({
  token = (c) => c.env.API_TOKEN,
  realm = 'edgeplan',
}: BearerAuthOptions = {}): MiddlewareHandler<AppEnv> {
  return async function bearerAuth(c, next) {
    const expected = token(c);
    if (!expected) return next();

    const header = c.req.header('Authorization');
    const challenge = `Bearer realm="${realm}"`;
    if (!header) {
      c.header('WWW-Authenticate', challenge);
      return jsonError(
        c,
        'unauthorized',
        'Missing Authorization header: send "Authorization: Bearer <token>"',
      );
    }
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (!match?.[1]) {
      c.header('WWW-Authenticate', `${challenge}, error="invalid_request"`);
      return jsonError(c, 'unauthorized', 'Authorization header must have the form "Bearer <token>"');
    }
    if (!(await tokensEqual(match[1], expected))) {
      c.header('WWW-Authenticate', `${challenge}, error="invalid_token"`);
      return jsonError(c, 'unauthorized', 'Invalid bearer token');
    }
    return next();
  };
}

/**
 * Constant-time comparison. Both sides are hashed first so the compared buffers always have the
 * same length: `timingSafeEqual` throws on a length mismatch, and an early length check would leak
 * the token's length.
 */
export async function tokensEqual(given: string, expected: string): Promise<boolean> {
  const encoder = new TextEncoder();
  const [a, b] = await Promise.all([
    crypto.subtle.digest('SHA-256', encoder.encode(given)),
    crypto.subtle.digest('SHA-256', encoder.encode(expected)),
  ]);
  return crypto.subtle.timingSafeEqual(a, b);
}
