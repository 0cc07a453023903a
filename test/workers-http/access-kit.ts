/**
 * A deployment behind Cloudflare Access for the tests: the team's keys (served on loopback by
 * access-jwks-server.ts), tokens signed with them as Access signs them (RS256, `kid` in the header),
 * and requests to the app with an Access token, an API token, or neither.
 */
import { env } from 'cloudflare:workers';
import { importJWK, SignJWT, type JWTPayload } from 'jose';
import { inject } from 'vitest';
import { createApp } from '../../src/http/app';
import type { Json } from '../workers/helpers';

export const keys = inject('accessKeys');
export const team = `http://127.0.0.1:${inject('accessPort')}`;
export const AUD = 'aud-tag-0123456789abcdef';
export const MACHINE_TOKEN = 'machine-token-for-ci';
/** A deployment behind Access, with an API token for machines beside it. */
export const accessEnv = {
  ...env,
  ALLOW_ANONYMOUS: '',
  API_TOKEN: MACHINE_TOKEN,
  ACCESS_TEAM_DOMAIN: team,
  ACCESS_AUD: AUD,
};
// No cooldown: the rotation test's new key is fetched at once, whatever fetched the keys just before.
export const app = createApp({ accessKeysCooldownMs: 0 });

export type Signing = { key?: keyof typeof keys; kid?: string; alg?: string };
export async function sign(claims: JWTPayload, { key = 'current', kid, alg = 'RS256' }: Signing = {}) {
  const k = keys[key];
  return new SignJWT(claims)
    .setProtectedHeader({ alg, kid: kid ?? k.kid })
    .sign(await importJWK(k.jwk, 'RS256'));
}
export const now = () => Math.floor(Date.now() / 1000);
export const ADA = 'ada@example.com';
export const valid = (extra: JWTPayload = {}): JWTPayload => ({
  aud: [AUD],
  iss: team,
  email: ADA,
  iat: now(),
  exp: now() + 600,
  sub: 'user-1',
  ...extra,
});

export async function call(
  path: string,
  {
    jwt,
    bearer,
    method = 'GET',
    body,
    envOverride = accessEnv,
  }: {
    jwt?: string;
    bearer?: string;
    method?: string;
    body?: unknown;
    envOverride?: Env;
  } = {},
) {
  const headers: Record<string, string> = {};
  if (jwt !== undefined) headers['Cf-Access-Jwt-Assertion'] = jwt;
  if (bearer !== undefined) headers.Authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await app.fetch(
    new Request(`http://edgeplan.test${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
    envOverride,
  );
  return { status: res.status, headers: res.headers, body: await res.json<Json>() };
}
