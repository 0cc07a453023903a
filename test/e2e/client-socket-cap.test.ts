/**
 * `edgeplan/client`'s watch() and the CLI's `watch` on a run that serves all the WebSockets it takes
 * (`429 too_many_sockets`, 100 open), against `wrangler dev`: `transport: "websocket"` throws the
 * server's refusal (its code, status and message), the default follows the run over HTTP and says
 * why (`onTransport`), and `edgeplan watch` follows the run to its end with a note on stderr.
 * `EDGEPLAN_E2E_PORT` pins the server's port (else a free one).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, EdgeplanApiError, type RunEvent } from '../../src/client';
// @ts-expect-error -- a plain .mjs script without declarations
import { startDevServer } from '../../scripts/dev-server.mjs';
import { pinnedPort } from './pinned-port';

let server: { base: string; stop(): Promise<void> };
const dir = mkdtempSync(join(tmpdir(), 'edgeplan-socket-cap-'));
const cli = join(dir, 'edgeplan.mjs');
const open: WebSocket[] = [];

beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build-cli.mjs', '--out', cli]);
  const port = pinnedPort();
  server = (await startDevServer({ name: 'client-socket-cap', port })) as typeof server;
}, 120_000);

afterAll(async () => {
  for (const ws of open) ws.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A run waiting for approval, with its 100 sockets open (the next one is refused). */
async function cappedRun(): Promise<string> {
  const res = await fetch(`${server.base}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      plan: { goal: 'watched by many', steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }] },
      config: { require_plan_approval: true },
    }),
  });
  const { run_id } = (await res.json()) as { run_id: string };
  const client = createClient({ baseUrl: server.base });
  await client.waitForRun(run_id, { until: 'waiting' });
  const url = `${server.base.replace(/^http/, 'ws')}/v1/runs/${run_id}/ws`;
  for (let i = 0; i < 100; i++) {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => resolve(), { once: true });
      ws.addEventListener('error', () => reject(new Error(`socket ${i + 1} did not open`)), { once: true });
    });
    open.push(ws);
  }
  return run_id;
}

const approve = (runId: string) =>
  createClient({ baseUrl: server.base }).decide(runId, { decision: 'approve' });

describe('watching a run that serves no more sockets', () => {
  it('with transport "websocket", throws the server’s 429 too_many_sockets, its message whole', async () => {
    const runId = await cappedRun();
    const client = createClient({ baseUrl: server.base });
    const err = await (async () => {
      for await (const e of client.watch(runId, { transport: 'websocket' })) void e;
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EdgeplanApiError);
    const refusal = err as EdgeplanApiError;
    expect([refusal.status, refusal.code]).toEqual([429, 'too_many_sockets']);
    expect(refusal.message).toContain('100 WebSockets open');
    expect(refusal.message).toContain('/wait?until=any_change');
  }, 60_000);

  it('by default, follows it over HTTP to its end and says why (onTransport)', async () => {
    const runId = await cappedRun();
    const client = createClient({ baseUrl: server.base });
    const told: [string, string | null][] = [];
    const seen: RunEvent[] = [];
    for await (const e of client.watch(runId, {
      onTransport: (transport, reason) => told.push([transport, reason?.code ?? null]),
    })) {
      seen.push(e);
      if (e.event_type === 'ApprovalRequested') await approve(runId);
    }
    expect(told[0]).toEqual(['poll', 'too_many_sockets']);
    expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1));
    expect(seen.at(-1)?.event_type).toBe('RunTerminated');
  }, 60_000);

  it('edgeplan watch follows it to its end, a note on stderr saying it follows over HTTP', async () => {
    const runId = await cappedRun();
    const child = spawn(process.execPath, [cli, 'watch', runId], {
      env: { ...process.env, EDGEPLAN_URL: server.base, NO_COLOR: '1' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += String(d)));
    const noted = new Promise<void>((resolve) =>
      child.stderr.on('data', (d: Buffer) => {
        err += String(d);
        if (err.includes('following it over HTTP')) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await noted;
    await approve(runId);
    expect(await exited).toBe(0);
    expect(err).toContain(`${runId} has as many WebSockets open as it serves (too_many_sockets)`);
    expect(out).toContain('RunTerminated');
  }, 60_000);
});
