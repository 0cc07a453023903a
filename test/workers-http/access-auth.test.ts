/**
 * Cloudflare Access in front of the Worker: with ACCESS_TEAM_DOMAIN and ACCESS_AUD set, a request
 * carrying a valid `Cf-Access-Jwt-Assertion` is authenticated as its identity for /v1, /mcp and the
 * run's WebSocket, and approvals record that identity. The team's keys come from a real server on
 * loopback (access-jwks-server.ts), fetched through the runtime's own fetch; tokens are signed here
 * with jose as Access signs them (RS256, `kid` in the header).
 */
import { env } from 'cloudflare:workers';
import { SignJWT } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { events, startRun, waitForRun, type Json } from '../workers/helpers';
import { base } from './loopback';
import { accessEnv, ADA, AUD, app, call, keys, MACHINE_TOKEN, now, sign, team, valid } from './access-kit';

const plan = {
  goal: 'approve me',
  steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }],
};
async function awaitingApproval(): Promise<string> {
  const runId = await startRun(plan, { require_plan_approval: true });
  await waitForRun(runId, (r) => r.status === 'awaiting_approval');
  return runId;
}

describe('Cloudflare Access configured', () => {
  it('takes a valid Access token as its email: /v1/me says who, and /v1 answers without an API token', async () => {
    const jwt = await sign(valid());
    expect(await call('/v1/me', { jwt })).toMatchObject({
      status: 200,
      body: { authenticated_as: ADA, via: 'access' },
    });
    expect((await call('/v1/runs', { jwt })).status).toBe(200);
  });

  it('keeps the keys it fetched: a second valid request fetches them no more', async () => {
    const jwt = await sign(valid());
    await call('/v1/me', { jwt });
    const before = await fetchCount();
    expect((await call('/v1/me', { jwt })).status).toBe(200);
    expect(await fetchCount()).toBe(before);
  });

  it('takes a service token as its common_name', async () => {
    const jwt = await sign(valid({ email: '', common_name: 'ci-bot.access', sub: '' }));
    expect((await call('/v1/me', { jwt })).body).toEqual({
      authenticated_as: 'ci-bot.access',
      via: 'access',
    });
  });

  it('records the signed-in email as the approver of an approval', async () => {
    const runId = await awaitingApproval();
    const res = await call(`/v1/runs/${runId}/approval`, {
      jwt: await sign(valid()),
      method: 'POST',
      body: { decision: 'approve' },
    });
    expect(res.status).toBe(200);
    const granted = (await events(runId)).find((e) => e.event_type === 'ApprovalGranted');
    expect(granted?.payload).toMatchObject({ by: 'approver', approver: ADA, approver_via: 'access' });
  });

  it('refuses an approver other than the signed-in one (400, naming who you are), and takes the same one', async () => {
    const runId = await awaitingApproval();
    const jwt = await sign(valid());
    const other = await call(`/v1/runs/${runId}/approval`, {
      jwt,
      method: 'POST',
      body: { decision: 'reject', approver: 'Mallory' },
    });
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('approver_mismatch');
    expect(other.body.error.message).toContain(`signed in through Cloudflare Access as ${ADA}`);
    expect((await call(`/v1/runs/${runId}`, { jwt })).body.status).toBe('awaiting_approval');

    const same = await call(`/v1/runs/${runId}/approval`, {
      jwt,
      method: 'POST',
      body: { decision: 'reject', approver: ADA },
    });
    expect(same.status).toBe(200);
    const rejected = (await events(runId)).find((e) => e.event_type === 'ApprovalRejected');
    expect(rejected?.payload).toMatchObject({ approver: ADA, approver_via: 'access' });
  });

  it('records the identity of an approval made through /mcp (approve_run)', async () => {
    const runId = await awaitingApproval();
    const res = await app.fetch(
      new Request('http://edgeplan.test/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'Cf-Access-Jwt-Assertion': await sign(valid({ email: 'grace@example.com' })),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'approve_run', arguments: { run_id: runId, decision: 'approve' } },
        }),
      }),
      accessEnv,
    );
    expect(res.status).toBe(200);
    await waitForRun(runId, (r) => r.status !== 'awaiting_approval');
    const granted = (await events(runId)).find((e) => e.event_type === 'ApprovalGranted');
    expect(granted?.payload).toMatchObject({ approver: 'grace@example.com', approver_via: 'access' });
  });

  it('opens a run’s WebSocket for an Access token in the header', async () => {
    const runId = await startRun(plan);
    await waitForRun(runId);
    const res = await app.fetch(
      new Request(`http://edgeplan.test/v1/runs/${runId}/ws?after=0`, {
        headers: { Upgrade: 'websocket', 'Cf-Access-Jwt-Assertion': await sign(valid()) },
      }),
      accessEnv,
    );
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    const first = new Promise<string>((resolve) =>
      ws.addEventListener('message', (m) => resolve(String(m.data))),
    );
    ws.accept();
    expect(JSON.parse(await first)).toMatchObject({ seq: 1, event_type: 'RunCreated' });
    ws.close();
  });

  it('records a name sent with the API token as its holder stated it (approver_via "token"), not as verified', async () => {
    const runId = await awaitingApproval();
    const res = await call(`/v1/runs/${runId}/approval`, {
      bearer: MACHINE_TOKEN,
      method: 'POST',
      body: { decision: 'approve', approver: 'Ada' },
    });
    expect(res.status).toBe(200);
    // Through the API as a client reads it: the events page carries the source beside the name.
    const page = await call(`/v1/runs/${runId}/events?after=0`, { bearer: MACHINE_TOKEN });
    const granted = (page.body.events as Json[]).find((e) => e.event_type === 'ApprovalGranted');
    expect(granted?.payload).toEqual({ by: 'approver', approver: 'Ada', approver_via: 'token' });
  });

  it('keeps taking the API token beside Access, and still refuses a request with neither', async () => {
    expect((await call('/v1/me', { bearer: MACHINE_TOKEN })).body).toEqual({
      authenticated_as: null,
      via: 'token',
    });
    const neither = await call('/v1/me');
    expect(neither.status).toBe(401);
    expect(neither.body.error.code).toBe('unauthorized');
  });

  it('takes a key published by a rotation (a new kid: the keys are fetched again)', async () => {
    await call('/v1/me', { jwt: await sign(valid()) });
    await fetch(`${team}/publish-rotated`, { method: 'POST' });
    const res = await call('/v1/me', {
      jwt: await sign(valid({ email: 'rot@example.com' }), { key: 'rotated' }),
    });
    expect(res).toMatchObject({ status: 200, body: { authenticated_as: 'rot@example.com' } });
    // The key before the rotation stays valid (Access publishes both for a week).
    expect((await call('/v1/me', { jwt: await sign(valid()) })).status).toBe(200);
  });
});

describe('an approval link behind Access', () => {
  /** A run awaiting approval whose webhook went to the loopback server; its link's token read from there. */
  const linked = async (name: string) => {
    const path = `/echo/access-link-${name}`;
    const runId = await startRun(plan, {
      require_plan_approval: true,
      approval: { webhook_url: `${base}${path}` },
    });
    const body = await vi.waitFor(async () => {
      const got = await (await fetch(`${base}/last-body?path=${path}`)).json<{ body: string | null }>();
      if (got.body === null) throw new Error('no webhook yet');
      return JSON.parse(got.body) as { approval_url: string };
    });
    return { runId, token: new URL(body.approval_url).searchParams.get('token')! };
  };
  const decide = (runId: string, token: string, body: unknown, jwt?: string) =>
    call(`/v1/runs/${runId}/approval?token=${encodeURIComponent(token)}`, {
      method: 'POST',
      body,
      ...(jwt === undefined ? {} : { jwt }),
    });

  it('records the Access identity of an approver who opened it signed in', async () => {
    const { runId, token } = await linked('signed-in');
    const jwt = await sign(valid({ email: 'linda@example.com' }));
    expect((await decide(runId, token, { decision: 'approve' }, jwt)).status).toBe(200);
    const granted = (await events(runId)).find((e) => e.event_type === 'ApprovalGranted');
    expect(granted?.payload).toMatchObject({ approver: 'linda@example.com', approver_via: 'access' });
  });

  it('takes the name typed from an approver Access let through without a session (a Bypass policy)', async () => {
    const { runId, token } = await linked('bypass');
    expect((await decide(runId, token, { decision: 'approve', approver: 'Outside Olga' })).status).toBe(200);
    const granted = (await events(runId)).find((e) => e.event_type === 'ApprovalGranted');
    // Typed by whoever held the link: a label, and the event says so.
    expect(granted?.payload).toMatchObject({ approver: 'Outside Olga', approver_via: 'link' });
  });
});

describe('an Access token that fails a check', () => {
  const b64 = (v: unknown) =>
    btoa(JSON.stringify(v)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  const hs256 = async () =>
    new SignJWT(valid())
      .setProtectedHeader({ alg: 'HS256', kid: keys.current.kid })
      .sign(new TextEncoder().encode('a-shared-secret-of-32-bytes-long!'));
  const CASES: [string, () => Promise<string>, string, RegExp][] = [
    ['garbage', () => Promise.resolve('not-a-jwt'), 'malformed', /not a signed JWT/],
    ['alg none', () => Promise.resolve(`${b64({ alg: 'none' })}.${b64(valid())}.`), 'algorithm', /RS256/],
    ['HS256', hs256, 'algorithm', /RS256/],
    ['a key the team does not publish', () => sign(valid(), { key: 'unpublished' }), 'unknown_key', /key id/],
    [
      'a signature by another key under a published kid',
      () => sign(valid(), { key: 'unpublished', kid: keys.current.kid }),
      'signature',
      /signature/,
    ],
    ['another application’s aud', () => sign(valid({ aud: ['other-app'] })), 'audience', /aud/],
    ['another team’s iss', () => sign(valid({ iss: 'https://evil.cloudflareaccess.com' })), 'issuer', /iss/],
    ['expired', () => sign(valid({ exp: now() - 120 })), 'expired', /expired/],
    ['no exp', () => sign({ aud: AUD, iss: team, email: ADA }), 'malformed', /exp/],
    ['not yet valid', () => sign(valid({ nbf: now() + 3600 })), 'not_yet_valid', /nbf/],
    ['no email and no common_name', () => sign(valid({ email: undefined })), 'identity', /common_name/],
  ];
  it.each(CASES)('%s → 401 access_token_invalid, details.check %s', async (_, make, check, words) => {
    const jwt = await make();
    const res = await call('/v1/me', { jwt, bearer: MACHINE_TOKEN });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: 'access_token_invalid', details: { check } });
    expect(res.body.error.message).toMatch(words);
    expect(res.body.error.message).not.toContain(jwt);
  });
});

describe('Access settings that do not hold', () => {
  it.each([
    ['only ACCESS_TEAM_DOMAIN', { ACCESS_AUD: '' }, /ACCESS_TEAM_DOMAIN is set but ACCESS_AUD is not/],
    ['only ACCESS_AUD', { ACCESS_TEAM_DOMAIN: '' }, /ACCESS_AUD is set but ACCESS_TEAM_DOMAIN is not/],
    ['a team domain over http', { ACCESS_TEAM_DOMAIN: 'http://acme.cloudflareaccess.com' }, /https/],
    [
      'a team domain with a path',
      { ACCESS_TEAM_DOMAIN: 'https://acme.cloudflareaccess.com/x' },
      /without a path/,
    ],
  ])('%s → 500 misconfigured saying the fix, for every request, and logged', async (_, change, words) => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const res = await call('/v1/me', { bearer: MACHINE_TOKEN, envOverride: { ...accessEnv, ...change } });
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('misconfigured');
    expect(res.body.error.message).toMatch(words);
    const lines = logged.mock.calls.map((args) => JSON.parse(String(args[0])) as Json);
    logged.mockRestore();
    expect(lines).toContainEqual(
      expect.objectContaining({ event: 'access_misconfigured', message: res.body.error.message }),
    );
  });

  it('answers 503 access_keys_unavailable with Retry-After when the team’s keys cannot be fetched', async () => {
    const res = await call('/v1/me', {
      jwt: await sign(valid()),
      envOverride: { ...accessEnv, ACCESS_TEAM_DOMAIN: 'http://127.0.0.1:9' },
    });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('access_keys_unavailable');
    expect(res.headers.get('Retry-After')).toBe('5');
  });
});

describe('Access not configured', () => {
  it('ignores the Access header: the API token decides as before', async () => {
    const plain = { ...env, ALLOW_ANONYMOUS: '', API_TOKEN: MACHINE_TOKEN };
    const jwt = await sign(valid());
    const refused = await call('/v1/me', { jwt, envOverride: plain });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('unauthorized');
    expect((await call('/v1/me', { jwt, bearer: MACHINE_TOKEN, envOverride: plain })).body).toEqual({
      authenticated_as: null,
      via: 'token',
    });
    expect((await call('/v1/me', { envOverride: env })).body).toEqual({
      authenticated_as: null,
      via: 'anonymous',
    });
  });

  it('records an approver as given', async () => {
    const runId = await awaitingApproval();
    const res = await call(`/v1/runs/${runId}/approval`, {
      method: 'POST',
      body: { decision: 'approve', approver: 'Mallory' },
      envOverride: env,
    });
    expect(res.status).toBe(200);
    const granted = (await events(runId)).find((e) => e.event_type === 'ApprovalGranted');
    expect(granted?.payload).toMatchObject({ approver: 'Mallory', approver_via: 'anonymous' });
  });
});

async function fetchCount(): Promise<number> {
  return (await (await fetch(`${team}/fetches`)).json<{ count: number }>()).count;
}
