/**
 * The upgrade request of a run's WebSocket. `Upgrade` is matched in any case (RFC 9110 §7.8: its
 * tokens are case-insensitive). The subprotocols a client offers: `edgeplan` is answered whenever it is
 * offered — with the bearer subprotocol or without (a deployment without API_TOKEN, a token sent as a
 * header) — since a client whose offer gets no answer must fail the connection; an offer without it
 * is a 400 saying what to offer, before any socket opens, and never repeats a token it carried.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app';
import { wsProtocols } from '../../src/client/ws-protocol';
import { startRun, waitForRun, type Json } from './helpers';

const app = createApp();

function upgrade(runId: string, protocols: string | null, bindings: object = env) {
  const headers: Record<string, string> = { Upgrade: 'websocket' };
  if (protocols !== null) headers['Sec-WebSocket-Protocol'] = protocols;
  return app.fetch(new Request(`http://edgeplan.test/v1/runs/${runId}/ws?after=0`, { headers }), bindings);
}

async function firstEvent(res: Response): Promise<Json> {
  const ws = res.webSocket!;
  const first = new Promise<string>((resolve) =>
    ws.addEventListener('message', (m) => resolve(String(m.data))),
  );
  ws.accept();
  const event = JSON.parse(await first) as Json;
  ws.close();
  return event;
}

describe('the Upgrade header of a run’s WebSocket', () => {
  it('opens the socket whatever the case of its value', async () => {
    const runId = await startRun({ goal: 'g', steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] });
    for (const value of ['WebSocket', 'WEBSOCKET', 'websocket']) {
      const res = await app.fetch(
        new Request(`http://edgeplan.test/v1/runs/${runId}/ws`, { headers: { Upgrade: value } }),
        env,
      );
      expect([value, res.status]).toEqual([value, 101]);
      expect(await firstEvent(res)).toMatchObject({ seq: 1 });
    }
  });
});

describe('the subprotocols of a run’s WebSocket', () => {
  it('answers edgeplan when it is offered without a bearer subprotocol, and opens the socket', async () => {
    const runId = await startRun({ goal: 'g', steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] });
    await waitForRun(runId);
    for (const offer of ['edgeplan', 'chat, edgeplan', ' edgeplan ,x']) {
      const res = await upgrade(runId, offer);
      expect([offer, res.status, res.headers.get('Sec-WebSocket-Protocol')]).toEqual([
        offer,
        101,
        'edgeplan',
      ]);
      expect(await firstEvent(res)).toMatchObject({ seq: 1, event_type: 'RunCreated' });
    }
  });

  it('answers edgeplan to a token sent as a header beside an offer of edgeplan', async () => {
    const runId = await startRun({ goal: 'g', steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] });
    const res = await app.fetch(
      new Request(`http://edgeplan.test/v1/runs/${runId}/ws`, {
        headers: { Upgrade: 'websocket', 'Sec-WebSocket-Protocol': 'edgeplan', Authorization: 'Bearer tok' },
      }),
      { ...env, API_TOKEN: 'tok' },
    );
    expect([res.status, res.headers.get('Sec-WebSocket-Protocol')]).toEqual([101, 'edgeplan']);
    expect(await firstEvent(res)).toMatchObject({ seq: 1 });
  });

  it('still opens without any offer, answering none', async () => {
    const runId = await startRun({ goal: 'g', steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] });
    const res = await upgrade(runId, null);
    expect([res.status, res.headers.get('Sec-WebSocket-Protocol')]).toEqual([101, null]);
    expect(await firstEvent(res)).toMatchObject({ seq: 1 });
  });

  it('refuses an offer without edgeplan with 400 saying what to offer, not repeating a token', async () => {
    const runId = await startRun({ goal: 'g', steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] });
    const bearerOnly = wsProtocols('sécret')[1]!;
    for (const [offer, bindings] of [
      ['graphql-ws', env],
      ['chat, superchat', env],
      [bearerOnly, { ...env, API_TOKEN: 'sécret' }],
    ] as const) {
      const res = await upgrade(runId, offer, bindings);
      expect([offer, res.status]).toEqual([offer, 400]);
      const { error } = await res.json<{ error: { code: string; message: string } }>();
      expect(error.code).toBe('invalid_request');
      expect(error.message).toContain('offer it');
      expect(error.message).not.toContain(bearerOnly);
    }
    // The run is as it was: its socket opens with the right offer.
    expect((await upgrade(runId, 'edgeplan')).status).toBe(101);
  });
});
