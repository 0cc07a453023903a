/**
 * Secure by default (SPEC §8): without API_TOKEN, /v1 answers 401 saying how to set it, unless
 * ALLOW_ANONYMOUS=true. The test Worker sets ALLOW_ANONYMOUS (vitest.config.mts); these tests take it
 * away per request.
 */
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/http/app';
import { NO_TOKEN_MESSAGE } from '../../src/http/middleware/auth';
import { startRun, waitForRun, type Json } from './helpers';

const app = createApp();
const closed = { ...env, API_TOKEN: undefined, ALLOW_ANONYMOUS: undefined };

function call(path: string, bindings: Partial<Env>, init: RequestInit = {}): Promise<Response> {
  return Promise.resolve(app.fetch(new Request(`http://edgeplan.test${path}`, init), bindings));
}

afterEach(() => vi.restoreAllMocks());

describe('a deployment without API_TOKEN', () => {
  it('answers /v1 with 401 unauthorized naming both ways to open it', async () => {
    for (const path of ['/v1/tools', '/v1/runs', '/v1/runs/run_x']) {
      const res = await call(path, closed);
      expect(res.status).toBe(401);
      expect(res.headers.get('WWW-Authenticate')).toMatch(/^Bearer realm="edgeplan"/);
      expect(await res.json()).toEqual({ error: { code: 'unauthorized', message: NO_TOKEN_MESSAGE } });
    }
    expect(NO_TOKEN_MESSAGE).toContain('wrangler secret put API_TOKEN');
    expect(NO_TOKEN_MESSAGE).toContain('ALLOW_ANONYMOUS=true');
  });

  it('refuses before reading a body, and whatever bearer token is sent', async () => {
    const post = await call('/v1/runs', closed, { method: 'POST', body: '{not json' });
    expect(post.status).toBe(401);
    const guessed = await call('/v1/tools', closed, { headers: { Authorization: 'Bearer anything' } });
    expect(guessed.status).toBe(401);
  });

  it('is open with ALLOW_ANONYMOUS=true, and only with a true value', async () => {
    expect((await call('/v1/tools', { ...closed, ALLOW_ANONYMOUS: 'true' })).status).toBe(200);
    expect((await call('/v1/tools', { ...closed, ALLOW_ANONYMOUS: 'TRUE' })).status).toBe(200);
    for (const value of ['false', '', 'yes please', '0']) {
      expect((await call('/v1/tools', { ...closed, ALLOW_ANONYMOUS: value })).status).toBe(401);
    }
  });

  it('still requires the token when both API_TOKEN and ALLOW_ANONYMOUS are set', async () => {
    const both = { ...closed, API_TOKEN: 't0ken', ALLOW_ANONYMOUS: 'true' };
    expect((await call('/v1/tools', both)).status).toBe(401);
    const ok = await call('/v1/tools', both, { headers: { Authorization: 'Bearer t0ken' } });
    expect(ok.status).toBe(200);
  });

  it('keeps /health, / and /openapi.json open', async () => {
    for (const path of ['/health', '/', '/openapi.json']) expect((await call(path, closed)).status).toBe(200);
  });
});

describe('the approval link on a deployment without API_TOKEN', () => {
  it('works on its capability token alone', async () => {
    const sent: string[] = [];
    const real = globalThis.fetch;
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const req = new Request(input, init);
      if (!req.url.startsWith('https://approver.example.com/')) return real(input, init);
      sent.push(await req.text());
      return new Response('ok');
    });
    const plan = { goal: 'approve me', steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] };
    const runId = await startRun(plan, {
      require_plan_approval: true,
      approval: { webhook_url: 'https://approver.example.com/hook' },
    });
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    const link = new URL((JSON.parse(sent[0]!) as Json).approval_url as string);
    const approve = (search: string) =>
      call(`${link.pathname}${search}`, closed, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'approve' }),
      });
    expect((await approve('')).status).toBe(401);
    expect((await approve(link.search)).status).toBe(200);
    expect((await waitForRun(runId)).status).toBe('completed');
  });
});
