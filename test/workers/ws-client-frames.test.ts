/**
 * What a run's WebSocket does with frames a client sends: `ping` is answered `pong`; anything else
 * (a command it does not take, garbage, binary, a frame of a megabyte) closes that socket with 1003
 * and a reason — while the run and every other socket on it carry on.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { UNSUPPORTED_FRAME } from '../../src/durable/sockets';
import { events, startRun, waitForRun, type Json } from './helpers';

type Socket = {
  ws: WebSocket;
  received: string[];
  closed: Promise<{ code: number; reason: string }>;
};

async function openSocket(runId: string): Promise<Socket> {
  const res = await exports.default.fetch(
    new Request(`http://edgeplan.test/v1/runs/${runId}/ws`, { headers: { Upgrade: 'websocket' } }),
  );
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  const received: string[] = [];
  ws.accept();
  ws.addEventListener('message', (m) => {
    received.push(String(m.data));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.addEventListener('close', (e) => resolve({ code: e.code, reason: e.reason })),
  );
  return { ws, received, closed };
}

const seqs = (s: Socket) =>
  s.received.filter((m) => m !== 'pong').map((m) => (JSON.parse(m) as Json).seq as number);

describe('frames a client sends on a run’s WebSocket', () => {
  it('answers ping with pong, and the socket stays open', async () => {
    const runId = await startRun({ steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] });
    await waitForRun(runId);
    const s = await openSocket(runId);
    s.ws.send('ping');
    await expect.poll(() => s.received.includes('pong')).toBe(true);
    // Answered by the runtime: a hibernated run object is not woken for a ping.
    const auto = await runInDurableObject(env.PLAN_RUN.getByName(runId), (_i, state) => {
      const pair = state.getWebSocketAutoResponse();
      return pair && { request: pair.request, response: pair.response };
    });
    expect(auto).toEqual({ request: 'ping', response: 'pong' });
    s.ws.close();
  });

  it('closes the socket with 1003 and a reason for any other frame, and the run and other sockets go on', async () => {
    const runId = await startRun({
      steps: [
        { id: 'a', action: 'demo.sleep', parameters: { ms: 300 } },
        { id: 'b', action: 'demo.echo', parameters: {}, dependencies: ['a'] },
      ],
    });
    const bystander = await openSocket(runId);
    const frames: (string | ArrayBuffer)[] = [
      '{"type":"cancel"}',
      'not json {{{',
      'x'.repeat(1024 * 1024 - 64),
      new Uint8Array([0, 1, 2, 255]).buffer,
    ];
    for (const frame of frames) {
      const s = await openSocket(runId);
      s.ws.send(frame);
      const { code, reason } = await s.closed;
      expect(code).toBe(UNSUPPORTED_FRAME);
      expect(reason).toContain('"ping"');
      expect(reason).toMatch(typeof frame === 'string' ? /only sends run events/ : /binary/);
    }
    const done = await waitForRun(runId);
    expect(done.status).toBe('completed');
    const all = (await events(runId)).map((e) => e.seq as number);
    await expect.poll(() => seqs(bystander)).toEqual(all);
    bystander.ws.close();
  });
});
