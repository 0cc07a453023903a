/**
 * A browser's WebSocket cannot carry an Authorization header, so the token may come as a subprotocol
 * (`edgeplan`, `edgeplan.bearer.<base64url(token)>`): accepted with `edgeplan` answered, refused when
 * wrong, and never taken from the subprotocol on a request that is not an upgrade.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app';
import { MALFORMED_PROTOCOL_MESSAGE } from '../../src/http/middleware/auth';
import { tokenFromProtocols, wsProtocols } from '../../src/client/ws-protocol';
import { startRun, waitForRun } from './helpers';

const app = createApp();
const withToken = { ...env, API_TOKEN: 'sécret token/+=' };

function upgrade(runId: string, protocols: string[]) {
  return app.fetch(
    new Request(`http://edgeplan.test/v1/runs/${runId}/ws?after=0`, {
      headers: { Upgrade: 'websocket', 'Sec-WebSocket-Protocol': protocols.join(', ') },
    }),
    withToken,
  );
}

describe('the API token as a WebSocket subprotocol', () => {
  it('round-trips any token through the subprotocol', () => {
    expect(tokenFromProtocols(wsProtocols('sécret token/+=').join(', '))).toBe('sécret token/+=');
    expect(tokenFromProtocols('edgeplan, edgeplan.bearer.!!!')).toBeUndefined();
    expect(tokenFromProtocols(undefined)).toBeUndefined();
  });

  it('opens the run’s socket with the right token, answering the edgeplan protocol, and sends its events', async () => {
    const runId = await startRun({ goal: 'g', steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] });
    await waitForRun(runId);
    const res = await upgrade(runId, wsProtocols('sécret token/+='));
    expect(res.status).toBe(101);
    expect(res.headers.get('Sec-WebSocket-Protocol')).toBe('edgeplan');
    const ws = res.webSocket!;
    const first = new Promise<string>((resolve) =>
      ws.addEventListener('message', (m) => resolve(String(m.data))),
    );
    ws.accept();
    expect(JSON.parse(await first)).toMatchObject({ seq: 1, event_type: 'RunCreated' });
    ws.close();
  });

  it('refuses a wrong token, and a subprotocol token on a plain request', async () => {
    const runId = await startRun({ goal: 'g', steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] });
    expect((await upgrade(runId, wsProtocols('wrong'))).status).toBe(401);
    const plain = await app.fetch(
      new Request(`http://edgeplan.test/v1/runs/${runId}`, {
        headers: { 'Sec-WebSocket-Protocol': wsProtocols('sécret token/+=').join(', ') },
      }),
      withToken,
    );
    expect(plain.status).toBe(401);
  });

  it('tells a client whose bearer subprotocol is unreadable so, not that its header is missing', async () => {
    const runId = await startRun({ goal: 'g', steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] });
    for (const bad of ['edgeplan.bearer.%%%', 'edgeplan.bearer.', 'edgeplan.bearer.c2VjcmV0=']) {
      const res = await upgrade(runId, ['edgeplan', bad]);
      expect(res.status).toBe(401);
      expect(res.headers.get('WWW-Authenticate')).toContain('error="invalid_request"');
      expect((await res.json<{ error: { message: string } }>()).error).toEqual({
        code: 'unauthorized',
        message: MALFORMED_PROTOCOL_MESSAGE,
      });
    }
    const none = await upgrade(runId, ['edgeplan']);
    expect((await none.json<{ error: { message: string } }>()).error.message).toMatch(
      /^Missing Authorization/,
    );
  });
});
