/**
 * Requests per client through a Workers rate-limit binding (SPEC §8; wrangler.toml `[[ratelimits]]`,
 * bound as `RATE_LIMITER`). The key is the bearer token when it is one of the deployment's (hashed:
 * the limiter never sees it; while a token is rotated, old and new each have their own allowance), else the client address (`CF-Connecting-IP`) — a wrong token too, so each
 * guess does not get a fresh allowance. Over the limit: `429 rate_limited` with
 * `Retry-After`. Without the binding nothing is limited.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { anyTokenMatches, apiTokens } from '../../api-tokens';
import { jsonError } from '../errors';
import type { AppEnv } from '../types';

export type RateLimitOptions = {
  /** The limiter for this request; undefined: no limit. */
  limiter?: (c: Context<AppEnv>) => RateLimit | undefined;
  /** `Retry-After` in seconds: the binding's period (10 or 60), which the binding does not expose. */
  retryAfterSeconds?: number;
};

/**
 * The limiter's key: `token:<sha-256 of the token>` for one of the deployment's own tokens
 * (`expected`, as `API_TOKEN` holds them), else `ip:<CF-Connecting-IP>`, else `ip:unknown`.
 */
export async function rateLimitKey(
  authorization: string | undefined,
  address: string | undefined,
  expected?: string,
) {
  const token = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1];
  if (token && (await anyTokenMatches(token, apiTokens(expected)))) {
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
    const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
    return `token:${hex.slice(0, 32)}`;
  }
  return `ip:${address?.trim() || 'unknown'}`;
}

/**
 * @example app.use('/v1/*', rateLimit()) // env.RATE_LIMITER, when bound
 */
export function rateLimit({
  limiter = (c) => c.env.RATE_LIMITER,
  retryAfterSeconds = 60,
}: RateLimitOptions = {}): MiddlewareHandler<AppEnv> {
  return async function rateLimit(c, next) {
    const binding = limiter(c);
    if (!binding) return next();
    const key = await rateLimitKey(
      c.req.header('Authorization'),
      c.req.header('CF-Connecting-IP'),
      c.env.API_TOKEN,
    );
    const { success } = await binding.limit({ key });
    if (success) return next();
    c.header('Retry-After', String(retryAfterSeconds));
    return jsonError(
      c,
      'rate_limited',
      `Too many requests from this ${key.startsWith('token:') ? 'token' : 'address'}; retry after ${retryAfterSeconds} s`,
    );
  };
}
