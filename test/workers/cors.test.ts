/** CORS_ORIGINS (SPEC §8): listed origins get CORS headers and preflights; others and unset get none. */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app';
import { parseOrigins } from '../../src/http/middleware/cors';

const app = createApp();
const withCors = {
  ...env,
  API_TOKEN: 'cors-token',
  CORS_ORIGINS: ' https://app.example.com, https://admin.example.com/ ,',
};

function call(bindings: Partial<Env>, init: RequestInit & { path?: string } = {}): Promise<Response> {
  const request = new Request(`http://edgeplan.test${init.path ?? '/v1/tools'}`, init);
  return Promise.resolve(app.fetch(request, bindings));
}

const preflight = (origin: string) => ({
  method: 'OPTIONS',
  headers: {
    Origin: origin,
    'Access-Control-Request-Method': 'POST',
    'Access-Control-Request-Headers': 'authorization, content-type',
  },
});

describe('CORS_ORIGINS', () => {
  it('parses a comma-separated list, ignoring blanks and trailing slashes', () => {
    expect(parseOrigins(withCors.CORS_ORIGINS)).toEqual([
      'https://app.example.com',
      'https://admin.example.com',
    ]);
    expect(parseOrigins(undefined)).toEqual([]);
    expect(parseOrigins(' , ')).toEqual([]);
  });

  it('answers a preflight from a listed origin without a token, allowing Authorization', async () => {
    const res = await call(withCors, preflight('https://admin.example.com'));
    expect(res.status).toBe(204);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('https://admin.example.com');
    expect(res.headers.get('Access-Control-Allow-Headers')?.toLowerCase()).toContain('authorization');
    expect(res.headers.get('Access-Control-Allow-Methods')).toContain('POST');
  });

  it('lets a page on a listed origin create a run with an Idempotency-Key and read that it was a replay', async () => {
    const res = await call(withCors, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example.com',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type, idempotency-key',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('Access-Control-Allow-Headers')?.toLowerCase()).toContain('idempotency-key');
    const created = await call(withCors, {
      path: '/v1/runs',
      method: 'POST',
      headers: {
        Origin: 'https://app.example.com',
        Authorization: 'Bearer cors-token',
        'content-type': 'application/json',
        'Idempotency-Key': `cors-${crypto.randomUUID()}`,
      },
      body: JSON.stringify({ plan: { steps: [{ id: 'a', action: 'demo.echo' }] } }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('Access-Control-Expose-Headers')).toContain('Idempotent-Replayed');
  });

  it('marks responses to a listed origin, errors included', async () => {
    const origin = { Origin: 'https://app.example.com' };
    const ok = await call(withCors, { headers: { ...origin, Authorization: 'Bearer cors-token' } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('Access-Control-Allow-Origin')).toBe('https://app.example.com');
    const refused = await call(withCors, { headers: origin });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('Access-Control-Allow-Origin')).toBe('https://app.example.com');
  });

  it('gives an unlisted origin no Allow-Origin', async () => {
    const res = await call(withCors, preflight('https://evil.example.com'));
    expect(res.headers.get('Access-Control-Allow-Origin')).toBeNull();
  });

  it('sends no CORS headers at all when unset', async () => {
    const res = await call(
      { ...env, CORS_ORIGINS: undefined },
      { headers: { Origin: 'https://app.example.com' } },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBeNull();
    const pre = await call({ ...env, CORS_ORIGINS: '' }, preflight('https://app.example.com'));
    expect(pre.headers.get('Access-Control-Allow-Origin')).toBeNull();
  });

  it('refuses a preflight from an origin it does not allow, saying what to set, before asking for a token', async () => {
    type Refusal = { error: { code: string; message: string; details: { origin: string } } };
    // Unset, and a token required: a preflight never carries one, and a 401 would send the page's
    // developer after their token.
    const unset = await call(
      { ...env, CORS_ORIGINS: '', API_TOKEN: 'cors-token' },
      preflight('https://app.example.com'),
    );
    expect(unset.status).toBe(403);
    const body = await unset.json<Refusal>();
    expect(body.error).toMatchObject({
      code: 'cross_site_request',
      details: { origin: 'https://app.example.com' },
    });
    expect(body.error.message).toBe(
      'A page on https://app.example.com asked your browser whether it may call /v1/tools (a CORS preflight), and CORS_ORIGINS is not set: add that origin to CORS_ORIGINS (comma-separated; * for any) to let its pages call the API with their token.',
    );
    // Set, without that origin.
    const unlisted = await call(withCors, preflight('https://evil.example.com'));
    expect(unlisted.status).toBe(403);
    expect((await unlisted.json<Refusal>()).error.message).toContain(
      'CORS_ORIGINS does not name https://evil.example.com',
    );
    // An OPTIONS that is no preflight is told what the path takes, as before.
    const plain = await call({ ...env, CORS_ORIGINS: '' }, { method: 'OPTIONS' });
    expect(plain.status).toBe(405);
  });

  it('allows any origin with *', async () => {
    const res = await call({ ...env, CORS_ORIGINS: '*' }, { headers: { Origin: 'https://x.example' } });
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
  });
});
