/**
 * A run's WebSocket sends one connection at most its share of the backlog (WS_BACKLOG_BYTES, made
 * small here), then closes with 4000 naming the seq to go on after — a 100,000-step run's 130 MB of
 * events would otherwise sit in the object's memory at once. `watch()` reconnects from there at once:
 * every event once, in order.
 */
import { exports } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client';
import { BACKLOG_CLOSE, setWsBacklogBytes } from '../../src/durable/sockets';
import { events, startRun, waitForRun, type Json } from './helpers';

afterEach(() => setWsBacklogBytes(null));

async function backlog(runId: string, after: number) {
  const res = await exports.default.fetch(
    new Request(`http://edgeplan.test/v1/runs/${runId}/ws?after=${after}`, {
      headers: { Upgrade: 'websocket' },
    }),
  );
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  const seqs: number[] = [];
  const bytes: number[] = [];
  ws.addEventListener('message', (m) => {
    seqs.push((JSON.parse(String(m.data)) as Json).seq as number);
    bytes.push(new TextEncoder().encode(String(m.data)).length);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.addEventListener('close', (e) => resolve({ code: e.code, reason: e.reason })),
  );
  ws.accept();
  return { ws, seqs, bytes, closed };
}

const chain = (n: number, pad = 'x') =>
  Array.from({ length: n }, (_, i) => ({
    id: `s${i}`,
    action: 'demo.echo',
    parameters: { pad: pad.repeat(500) },
    dependencies: i === 0 ? [] : [`s${i - 1}`],
  }));

describe('a long backlog over a run’s WebSocket', () => {
  it('is sent in shares: each socket closes with 4000 and the seq to go on after', async () => {
    const runId = await startRun({ steps: chain(12) });
    await waitForRun(runId);
    const total = (await events(runId)).length;
    setWsBacklogBytes(4000);
    const got: number[] = [];
    let after = 0;
    let sockets = 0;
    for (;;) {
      const s = await backlog(runId, after);
      sockets += 1;
      const closed = await Promise.race([s.closed, new Promise<null>((r) => setTimeout(() => r(null), 500))]);
      got.push(...s.seqs);
      if (closed === null) {
        s.ws.close();
        break; // the rest of the backlog fit: the socket stays open for live events
      }
      expect(closed.code).toBe(BACKLOG_CLOSE);
      const last = s.seqs.at(-1)!;
      expect(closed.reason).toBe(`more events after seq ${last}: reconnect with ?after=${last}`);
      after = last;
    }
    expect(sockets).toBeGreaterThan(2);
    expect(got).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  });

  it('is followed whole by watch(), which reconnects after each share', async () => {
    const runId = await startRun({ steps: chain(12) });
    await waitForRun(runId);
    const total = (await events(runId)).length;
    setWsBacklogBytes(4000);
    const reconnects: number[] = [];
    const client = createClient({
      baseUrl: 'http://edgeplan.test',
      fetch: (input, init) => exports.default.fetch(new Request(input, init)),
    });
    const seen: number[] = [];
    for await (const e of client.watch(runId, {
      transport: 'websocket',
      onReconnect: (n) => reconnects.push(n),
    }))
      seen.push(e.seq);
    expect(seen).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    // A share's end is not a dropped connection: no backoff, no onReconnect.
    expect(reconnects).toEqual([]);
  });

  it('counts a share in bytes: text of many bytes a character makes no larger share', async () => {
    const runId = await startRun({ steps: chain(12, '中') });
    await waitForRun(runId);
    setWsBacklogBytes(40_000);
    const s = await backlog(runId, 0);
    const closed = await s.closed;
    expect(closed.code).toBe(BACKLOG_CLOSE);
    // The share is reached with the last message sent: the ones before it are under 40,000 bytes.
    expect(s.bytes.slice(0, -1).reduce((a, b) => a + b, 0)).toBeLessThan(40_000);
  });
});
