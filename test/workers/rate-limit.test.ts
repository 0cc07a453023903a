/** The rate-limit binding (SPEC §8), faked: a key per token or address, 429 with Retry-After. */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app';
import { rateLimitKey } from '../../src/http/middleware/rate-limit';

const app = createApp();

/** A limiter allowing `limit` calls per key, recording the keys it was asked about. */
function fakeLimiter(limit: number) {
  const keys: string[] = [];
  const limiter: RateLimit = {
    limit: ({ key }) => {
      keys.push(key);
      return Promise.resolve({ success: keys.filter((k) => k === key).length <= limit });
    },
  };
  return { limiter, keys };
}

function call(bindings: Partial<Env>, headers: Record<string, string> = {}, path = '/v1/tools') {
  return Promise.resolve(app.fetch(new Request(`http://edgeplan.test${path}`, { headers }), bindings));
}

describe('the rate limit', () => {
  it('answers 429 rate_limited with Retry-After past the limit, per address', async () => {
    const { limiter, keys } = fakeLimiter(2);
    const bindings = { ...env, RATE_LIMITER: limiter };
    const from = (ip: string) => call(bindings, { 'CF-Connecting-IP': ip });
    expect((await from('203.0.113.7')).status).toBe(200);
    expect((await from('203.0.113.7')).status).toBe(200);
    const limited = await from('203.0.113.7');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('Retry-After')).toBe('60');
    const body = await limited.json<{ error: { code: string; message: string } }>();
    expect(body.error.code).toBe('rate_limited');
    expect(body.error.message).toContain('address');
    expect((await from('198.51.100.1')).status).toBe(200);
    expect(keys).toEqual(['ip:203.0.113.7', 'ip:203.0.113.7', 'ip:203.0.113.7', 'ip:198.51.100.1']);
  });

  it('keys by the bearer token, hashed, whatever the address', async () => {
    const { limiter, keys } = fakeLimiter(1);
    const bindings = { ...env, API_TOKEN: 'rl-token', RATE_LIMITER: limiter };
    const auth = { Authorization: 'Bearer rl-token' };
    expect((await call(bindings, { ...auth, 'CF-Connecting-IP': '203.0.113.7' })).status).toBe(200);
    expect((await call(bindings, { ...auth, 'CF-Connecting-IP': '203.0.113.8' })).status).toBe(429);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[0]).toMatch(/^token:[0-9a-f]{32}$/);
    expect(keys.join()).not.toContain('rl-token');
  });

  it('keys a wrong token by the address: guessing tokens does not earn a fresh allowance per guess', async () => {
    const { limiter, keys } = fakeLimiter(2);
    const bindings = { ...env, API_TOKEN: 'rl-token', RATE_LIMITER: limiter };
    const guess = (token: string) =>
      call(bindings, { Authorization: `Bearer ${token}`, 'CF-Connecting-IP': '203.0.113.9' });
    expect((await guess('guess-1')).status).toBe(401);
    expect((await guess('guess-2')).status).toBe(401);
    const third = await guess('guess-3');
    expect(third.status).toBe(429);
    expect(keys).toEqual(['ip:203.0.113.9', 'ip:203.0.113.9', 'ip:203.0.113.9']);
    // The right token from the same address has its own allowance.
    expect((await guess('rl-token')).status).toBe(200);
  });

  it('limits /v1 only, and nothing without the binding', async () => {
    const { limiter } = fakeLimiter(0);
    expect((await call({ ...env, RATE_LIMITER: limiter }, {}, '/health')).status).toBe(200);
    expect((await call({ ...env, RATE_LIMITER: limiter })).status).toBe(429);
    expect((await call({ ...env, RATE_LIMITER: undefined })).status).toBe(200);
  });

  it('keys a request with neither token nor address as ip:unknown', async () => {
    expect(await rateLimitKey(undefined, undefined)).toBe('ip:unknown');
    expect(await rateLimitKey('Basic abc', ' 2001:db8::1 ')).toBe('ip:2001:db8::1');
    expect(await rateLimitKey('Bearer abc', '192.0.2.1')).toBe('ip:192.0.2.1');
    expect(await rateLimitKey('Bearer abc', '192.0.2.1', 'abd')).toBe('ip:192.0.2.1');
    expect(await rateLimitKey('Bearer abc', '192.0.2.1', 'abc')).toMatch(/^token:/);
  });
});
