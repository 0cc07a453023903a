/**
 * Rotating `API_TOKEN` without an outage (SPEC §8): it may hold several tokens, separated by commas
 * or line breaks, any of which opens `/v1`, `/mcp` and a run's WebSocket (as the header or the
 * `edgeplan.bearer.` subprotocol). Through the real Worker (src/worker.ts), with real objects and D1.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import worker from '../../src/worker';
import { EMPTY_TOKEN_LIST_MESSAGE } from '../../src/http/middleware/auth';
import { wsProtocols } from '../../src/client/ws-protocol';
import { APPROVER_URL, runAwaitingApproval } from './approval-helpers';
import { startRun, waitForRun } from './helpers';

afterEach(() => vi.restoreAllMocks());

/** A request to the Worker as deployed with `API_TOKEN` set to `apiToken` (no anonymous access). */
async function send(apiToken: string, path: string, init: RequestInit = {}, more: Partial<Env> = {}) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://edgeplan.test${path}`, init),
    {
      ...env,
      ALLOW_ANONYMOUS: undefined,
      API_TOKEN: apiToken,
      ...more,
    },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}
const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });
const status = async (apiToken: string, token: string) =>
  (await send(apiToken, '/v1/tools', bearer(token))).status;

describe('API_TOKEN with several tokens', () => {
  it('rotates without an outage: add the new token, move the clients, remove the old', async () => {
    // Before: one token.
    expect([await status('tok-old', 'tok-old'), await status('tok-old', 'tok-new')]).toEqual([200, 401]);
    // Both, while clients move (a space after the comma, a line break: either separates).
    for (const both of ['tok-old,tok-new', 'tok-old, tok-new', 'tok-old\ntok-new\n']) {
      expect([await status(both, 'tok-old'), await status(both, 'tok-new')]).toEqual([200, 200]);
    }
    // After: only the new one.
    expect([await status('tok-new', 'tok-old'), await status('tok-new', 'tok-new')]).toEqual([401, 200]);
  });

  it('refuses anything that is not one whole token: the list itself, a part, a wrong one', async () => {
    const list = 'tok-old,tok-new';
    for (const wrong of ['tok-old,tok-new', 'tok-old,', 'tok', 'tok-newer', 'tok-ol']) {
      const res = await send(list, '/v1/tools', bearer(wrong));
      expect(res.status).toBe(401);
      expect(res.headers.get('WWW-Authenticate')).toContain('error="invalid_token"');
      // Saying what to send: a client still on the old token after a rotation is told to move.
      expect((await res.json<{ error: { message: string } }>()).error.message).toBe(
        'Invalid bearer token: send one of the tokens the API_TOKEN secret holds (after a rotation, the new one)',
      );
    }
  });

  it('ignores empty entries', async () => {
    expect(await status(' , tok-new,,\n', 'tok-new')).toBe(200);
  });

  it('stays closed when API_TOKEN holds only separators, even with ALLOW_ANONYMOUS=true', async () => {
    for (const empty of [',', ' , \n ', '\n']) {
      const res = await send(empty, '/v1/tools', {}, { ALLOW_ANONYMOUS: 'true' });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        error: { code: 'unauthorized', message: EMPTY_TOKEN_LIST_MESSAGE },
      });
    }
  });

  it('keeps a single token without a comma or line break exactly as it was, inner spaces and all', async () => {
    const runId = await startRun({ goal: 'g', steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] });
    await waitForRun(runId);
    const upgrade = (apiToken: string, token: string) =>
      send(apiToken, `/v1/runs/${runId}/ws?after=0`, {
        headers: { Upgrade: 'websocket', 'Sec-WebSocket-Protocol': wsProtocols(token).join(', ') },
      });
    const spaced = await upgrade('sécret token/+=', 'sécret token/+=');
    expect(spaced.status).toBe(101);
    spaced.webSocket!.accept();
    spaced.webSocket!.close();
    expect((await upgrade('sécret token/+=', 'sécret')).status).toBe(401); // As the Authorization header too: the token runs to the header's end, not its first space.
    expect([
      await status('my secret token', 'my secret token'),
      await status('my secret token', 'my secret'),
      await status('my secret token', 'my  secret token'),
    ]).toEqual([200, 401, 401]);
  });

  it('opens a run’s WebSocket with either token, as the header or the subprotocol', async () => {
    const runId = await startRun({ goal: 'g', steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] });
    await waitForRun(runId);
    const path = `/v1/runs/${runId}/ws?after=0`;
    const statuses: number[] = [];
    for (const token of ['tok-old', 'tok-new', 'tok-gone']) {
      const viaProtocol = await send('tok-old,tok-new', path, {
        headers: { Upgrade: 'websocket', 'Sec-WebSocket-Protocol': wsProtocols(token).join(', ') },
      });
      const viaHeader = await send('tok-old,tok-new', path, {
        headers: { Upgrade: 'websocket', Authorization: `Bearer ${token}` },
      });
      for (const res of [viaProtocol, viaHeader]) {
        statuses.push(res.status);
        res.webSocket?.accept();
        res.webSocket?.close();
      }
    }
    expect(statuses).toEqual([101, 101, 101, 101, 401, 401]);
  });

  it('opens /mcp with either token', async () => {
    const initialize = (token: string) =>
      send('tok-old,tok-new', '/mcp', {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-03-26',
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
          },
        }),
      });
    const answers = await Promise.all(['tok-old', 'tok-new', 'tok-gone'].map(initialize));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 401]);
    expect(await answers[1]!.text()).toContain('serverInfo');
  });

  it('keys the rate limit per token: the old and the new each have their own allowance', async () => {
    const keys: string[] = [];
    const limiter: RateLimit = {
      limit: ({ key }) => {
        keys.push(key);
        return Promise.resolve({ success: keys.filter((k) => k === key).length <= 1 });
      },
    };
    const call = (token: string) =>
      send('tok-old,tok-new', '/v1/tools', bearer(token), { RATE_LIMITER: limiter });
    expect([(await call('tok-old')).status, (await call('tok-new')).status]).toEqual([200, 200]);
    expect([(await call('tok-old')).status, (await call('tok-new')).status]).toEqual([429, 429]);
    expect(keys[0]).toMatch(/^token:[0-9a-f]{32}$/);
    expect(keys[1]).toMatch(/^token:[0-9a-f]{32}$/);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('leaves approval links alone: a link sent before the rotation still decides after it', async () => {
    // The link's token is its own capability (random, stored hashed), not derived from API_TOKEN.
    const { runId, token } = await runAwaitingApproval(
      { goal: 'approve me', steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] },
      { require_plan_approval: true, approval: { webhook_url: APPROVER_URL } },
    );
    const res = await send('tok-new', `/v1/runs/${runId}/approval?token=${encodeURIComponent(token)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(res.status).toBe(200);
    expect(await waitForRun(runId)).toMatchObject({ status: 'completed' });
  });
});
