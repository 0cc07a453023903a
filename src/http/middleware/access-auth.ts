/**
 * Cloudflare Access auth for `/v1/*`, `/mcp` and a run's WebSocket (SPEC §8): with `ACCESS_TEAM_DOMAIN`
 * and `ACCESS_AUD` set, a request carrying a `Cf-Access-Jwt-Assertion` (the header Access adds at the
 * edge) is authenticated as the identity the token names, once the token passes every check. A
 * request without the header goes on to the bearer check (`auth.ts`), so machines keep using
 * `API_TOKEN`. Runs before it; the bearer check skips a request this one authenticated.
 */
import type { MiddlewareHandler } from 'hono';
import { log } from '../../log';
import { accessConfig } from '../access/config';
import { accessVerifier, type AccessVerifierOptions } from '../access/verify-jwt';
import { jsonError } from '../errors';
import type { AppEnv } from '../types';

/** The header Access adds to every request it lets through to the Worker. */
export const ACCESS_JWT_HEADER = 'Cf-Access-Jwt-Assertion';

/** Seconds a client is asked to wait when Access's keys could not be read. */
const KEYS_RETRY_AFTER_S = 5;

/**
 * @example app.use('/v1/*', accessAuth()) // ACCESS_TEAM_DOMAIN and ACCESS_AUD from env
 */
export function accessAuth(options: AccessVerifierOptions = {}): MiddlewareHandler<AppEnv> {
  const verify = accessVerifier(options);
  return async function accessAuth(c, next) {
    const config = accessConfig(c.env);
    if (config.kind === 'off') return next();
    if (config.kind === 'misconfigured') {
      // The caller cannot fix it: the operator must hear of it too.
      log('access_misconfigured', config.message, {
        code: 'misconfigured',
        method: c.req.method,
        path: c.req.path,
      });
      return jsonError(c, 'misconfigured', config.message);
    }
    const token = c.req.header(ACCESS_JWT_HEADER);
    if (token === undefined) return next();
    const verdict = await verify(token.trim(), config);
    if (verdict.ok) {
      c.set('caller', { via: 'access', identity: verdict.identity });
      return next();
    }
    if (verdict.check === 'keys_unavailable') {
      log('access_keys_unavailable', verdict.message, { code: 'access_keys_unavailable', path: c.req.path });
      c.header('Retry-After', String(KEYS_RETRY_AFTER_S));
      return jsonError(c, 'access_keys_unavailable', verdict.message);
    }
    return jsonError(
      c,
      'access_token_invalid',
      `The Cloudflare Access token (${ACCESS_JWT_HEADER}) was refused: ${verdict.message}. Sign in through Access again, or send "Authorization: Bearer <API_TOKEN>" without it.`,
      { check: verdict.check },
    );
  };
}
