/**
 * A run's WebSocket over real HTTP against `wrangler dev`, from Node's own WebSocket (undici), which
 * holds a server to RFC 6455 as a browser does: a client offering the subprotocol `edgeplan` alone
 * gets it answered and its socket opens — it was answered none and the client had to drop the
 * upgrade — and one offering none of ours is refused before any socket opens.
 * `EDGEPLAN_E2E_PORT` pins the server's port (else a free one).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without declarations
import { startDevServer } from '../../scripts/dev-server.mjs';
import { pinnedPort } from './pinned-port';

let server: { base: string; stop(): Promise<void> };

beforeAll(async () => {
  const port = pinnedPort();
  server = (await startDevServer({ name: 'ws-subprotocol', port })) as typeof server;
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

/** What a socket did before it closed: whether it opened, its protocol, its first message. */
function follow(url: string, protocols: string[]) {
  return new Promise<{ opened: boolean; protocol: string; first?: string; code: number }>((resolve) => {
    const ws = new WebSocket(url, protocols);
    let opened = false;
    let first: string | undefined;
    ws.onopen = () => (opened = true);
    ws.onmessage = (m) => {
      first ??= String(m.data);
      ws.close(1000);
    };
    ws.onclose = (e) => resolve({ opened, protocol: ws.protocol, code: e.code, ...(first ? { first } : {}) });
  });
}

describe('a run’s WebSocket offered subprotocols, over real HTTP', () => {
  it('opens for a client offering edgeplan alone, answering it, and sends the run’s events', async () => {
    const res = await fetch(`${server.base}/v1/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ plan: { steps: [{ id: 'a', action: 'demo.echo', parameters: { m: 1 } }] } }),
    });
    const { run_id: runId } = (await res.json()) as { run_id: string };
    const url = `${server.base.replace(/^http/, 'ws')}/v1/runs/${runId}/ws`;
    const socket = await follow(url, ['edgeplan']);
    expect(socket).toMatchObject({ opened: true, protocol: 'edgeplan' });
    expect(JSON.parse(socket.first!)).toMatchObject({ seq: 1, event_type: 'RunCreated' });

    // Refused before the upgrade (400 invalid_request, its body in ws-upgrade-headers.test.ts).
    const refused = await follow(url, ['graphql-ws']);
    expect(refused.opened).toBe(false);
  });
});
