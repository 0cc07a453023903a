/**
 * Bearer-token auth for `/v1/*` (SPEC §6, §8 "Secure by default"): with `API_TOKEN` set a request
 * must carry one of its tokens (several, comma-separated, while one is rotated: src/api-tokens.ts);
 * without it every request is refused (`401`, saying how to set it) unless `ALLOW_ANONYMOUS=true`
 * opens the API on purpose (what `npm start` does for local use).
 *
 * Written here rather than taken from `hono/bearer-auth` (which does compare in constant time) so
 * every failure is the API's `401 unauthorized` envelope with a `WWW-Authenticate` challenge, and a
 * malformed header is a 401 too instead of a plain-text 400.
 */
import type { Context, MiddlewareHandler, Next } from 'hono';
import { anyTokenMatches, apiTokens } from '../../api-tokens';
import { jsonError } from '../errors';
import type { AppEnv } from '../types';
import { offersBearerProtocol, tokenFromProtocols } from '../../client/ws-protocol';

export type BearerAuthOptions = {
  /** The accepted tokens for this request, as `API_TOKEN` holds them; undefined or "" means none is configured. */
  token?: (c: Context<AppEnv>) => string | undefined;
  /** Whether a deployment without a token is open on purpose. */
  allowAnonymous?: (c: Context<AppEnv>) => boolean;
  /** Requests that carry their own proof (the approval link's capability token) and skip auth. */
  skip?: (c: Context<AppEnv>) => boolean;
  /** The `realm` in the challenge. */
  realm?: string;
};

/** What a request to a deployment without `API_TOKEN` is told. */
export const NO_TOKEN_MESSAGE =
  'This deployment has no API token: set one with `wrangler secret put API_TOKEN` (then send ' +
  '"Authorization: Bearer <token>"), or set ALLOW_ANONYMOUS=true to open the API without one (local use)';

/** What every request is told when `API_TOKEN` is set but holds only separators (fails closed). */
export const EMPTY_TOKEN_LIST_MESSAGE =
  'API_TOKEN is set but holds no token (only commas, line breaks or spaces): set it to a token, or to ' +
  'several separated by commas while one is rotated (`wrangler secret put API_TOKEN`)';

/** What a request with a token the deployment does not hold is told (a typo, or the old one after a rotation). */
export const WRONG_TOKEN_MESSAGE =
  'Invalid bearer token: send one of the tokens the API_TOKEN secret holds (after a rotation, the new one)';

/** What a WebSocket upgrade whose `edgeplan.bearer.` subprotocol carries no readable token is told. */
export const MALFORMED_PROTOCOL_MESSAGE =
  'The WebSocket subprotocol "edgeplan.bearer.<token>" must carry the token as base64url of its UTF-8 ' +
  '(no padding; wsProtocols(token) from edgeplan/client builds it)';

/** `ALLOW_ANONYMOUS=true` (case-insensitive; also `1`): the API is open when no token is set. */
export function anonymousAllowed(value: string | undefined): boolean {
  return /^(true|1)$/i.test(value?.trim() ?? '');
}

/**
 * @example app.use('/v1/*', bearerAuth()) // token from env.API_TOKEN, ALLOW_ANONYMOUS from env
 */
export function bearerAuth({
  token = (c) => c.env.API_TOKEN,
  allowAnonymous = (c) => anonymousAllowed(c.env.ALLOW_ANONYMOUS),
  skip = () => false,
  realm = 'edgeplan',
}: BearerAuthOptions = {}): MiddlewareHandler<AppEnv> {
  return async function bearerAuth(c, next) {
    // Cloudflare Access verified who this is (access-auth.ts, which runs first): no token needed.
    if (skip(c) || c.get('caller').via === 'access') return next();
    const configured = token(c);
    const challenge = `Bearer realm="${realm}"`;
    if (!configured) {
      if (allowAnonymous(c)) return next();
      c.header('WWW-Authenticate', challenge);
      return jsonError(c, 'unauthorized', NO_TOKEN_MESSAGE);
    }
    // Set, but to nothing usable: closed, not open (ALLOW_ANONYMOUS is for a deployment without one).
    const expected = apiTokens(configured);
    if (expected.length === 0) {
      c.header('WWW-Authenticate', challenge);
      return jsonError(c, 'unauthorized', EMPTY_TOKEN_LIST_MESSAGE);
    }

    // A browser's WebSocket cannot send the header: it offers the token as a subprotocol instead.
    const protocols =
      c.req.header('Upgrade')?.toLowerCase() === 'websocket'
        ? c.req.header('Sec-WebSocket-Protocol')
        : undefined;
    const fromProtocol = tokenFromProtocols(protocols);
    const header = c.req.header('Authorization');
    if (!header && fromProtocol !== undefined) {
      if (await anyTokenMatches(fromProtocol, expected)) return asTokenHolder(c, next);
      c.header('WWW-Authenticate', `${challenge}, error="invalid_token"`);
      return jsonError(c, 'unauthorized', `${WRONG_TOKEN_MESSAGE} (in the WebSocket subprotocol)`);
    }
    // A token was offered, just not readably: saying the header is missing would send the client
    // looking in the wrong place.
    if (!header && offersBearerProtocol(protocols)) {
      c.header('WWW-Authenticate', `${challenge}, error="invalid_request"`);
      return jsonError(c, 'unauthorized', MALFORMED_PROTOCOL_MESSAGE);
    }
    if (!header) {
      c.header('WWW-Authenticate', challenge);
      return jsonError(
        c,
        'unauthorized',
        'Missing Authorization header: send "Authorization: Bearer <token>"',
      );
    }
    // The token runs to the header's last non-space: API_TOKEN keeps a token's inner spaces
    // (src/api-tokens.ts), and a header cut at the first one could never match such a token.
    const match = /^Bearer +(\S(?:.*\S)?) *$/i.exec(header);
    if (!match?.[1]) {
      c.header('WWW-Authenticate', `${challenge}, error="invalid_request"`);
      return jsonError(c, 'unauthorized', 'Authorization header must have the form "Bearer <token>"');
    }
    if (!(await anyTokenMatches(match[1], expected))) {
      c.header('WWW-Authenticate', `${challenge}, error="invalid_token"`);
      return jsonError(c, 'unauthorized', WRONG_TOKEN_MESSAGE);
    }
    return asTokenHolder(c, next);
  };
}

/** Goes on as the holder of an API token (`GET /v1/me` says `via: "token"`). */
function asTokenHolder(c: Context<AppEnv>, next: Next): Promise<void> {
  c.set('caller', { via: 'token' });
  return next();
}
