/**
 * The built `edgeplan watch` in a real terminal (tmux) when the client waits out a refusal mid-watch
 * (a 429 with Retry-After, src/client/retry-policy.ts): its notice stays on screen above the live
 * view, as the connection notes do — written between two frames, the next frame erased it as a line
 * of its own and left a stale header of the old frame above the view. Against a real HTTP server on
 * loopback that speaks no WebSocket (the watch polls `/events`) and refuses one poll with 429.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTerminal } from './tmux-terminal';

const dir = mkdtempSync(join(tmpdir(), 'edgeplan-cli-retry-live-'));
const cli = join(dir, 'edgeplan.mjs');
let server: Server;
let url = '';

const event = (seq: number, event_type: string, payload: object) => ({
  event_id: `evt_${seq}`,
  seq,
  event_type,
  timestamp: `2026-11-30T12:00:0${seq}.000Z`,
  actor: 'system',
  references: {},
  payload,
});
const events = [
  event(1, 'RunStarted', {}),
  event(2, 'RunTerminated', { status: 'completed', reason: 'all steps done', final_output: 'done' }),
];

beforeAll(async () => {
  execFileSync(process.execPath, [join(process.cwd(), 'scripts/build-cli.mjs'), '--out', cli]);
  // The run's events: its start at once; then one poll refused (429, Retry-After: 1); then its end.
  let polls = 0;
  server = createServer((req, res) => {
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const path = new URL(req.url ?? '/', 'http://x');
    if (path.pathname === '/v1/runs/run_1/status')
      return json(200, { run_id: 'run_1', run_status: 'running' });
    if (path.pathname !== '/v1/runs/run_1/events')
      return json(404, { error: { code: 'not_found', message: 'no' } });
    const after = Number(path.searchParams.get('after'));
    polls += 1;
    if (after >= 1 && polls < 4)
      return json(429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'retry-after': '1' });
    return json(200, {
      events: events.filter((e) => e.seq > after).slice(0, polls > 1 ? 2 : 1),
      has_more: false,
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('edgeplan watch and a refusal waited out mid-watch (tmux)', () => {
  it('keeps the retry notice on screen above one live view', async () => {
    const command = `NO_COLOR=1 EDGEPLAN_URL=${url} ${process.execPath} ${cli} watch run_1; echo EXIT=$?; sleep 60`;
    const terminal = openTerminal('edgeplan-retry-live', { cols: 110, rows: 30 }, command);
    try {
      const shown = await terminal.until(/EXIT=/);
      expect(shown).toMatch(/EXIT=0/);
      expect(shown).toMatch(/^edgeplan: rate limited: retrying in 1 s \(Ctrl-C to stop\)$/m);
      expect(shown).toMatch(/edgeplan run_1 {2}completed/);
      expect(shown.match(/edgeplan run_1/g)).toHaveLength(1);
    } finally {
      terminal.close();
    }
  }, 60_000);
});
