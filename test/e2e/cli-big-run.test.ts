/**
 * `edgeplan events` on a run of many events, the built command against `wrangler dev` through a
 * loopback proxy that sees its requests: it asks for pages of at most 1,000 and prints each page as
 * it reads it, holding none — so what it printed before a later page failed (the run deleted while
 * it was being listed) is on stdout, not lost with the rest. And the live view of a fast run on a
 * terminal draws a frame a tick, not one for each of its thousands of events.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from './cli-process';
import { pinnedPort } from './pinned-port';
// @ts-expect-error -- a plain .mjs script without declarations
import { startDevServer } from '../../scripts/dev-server.mjs';

const dir = mkdtempSync(join(tmpdir(), 'edgeplan-cli-big-run-'));
const cli = join(dir, 'edgeplan.mjs');
let server: { base: string; stop(): Promise<void> } | undefined;
let proxy: Server;
let url = '';
/** The query of every `/events` request the command made, in order. */
let eventReads: URLSearchParams[] = [];
/** Called before the proxy forwards the request for the events page numbered (from 1) `n`. */
let beforePage: (n: number) => Promise<void> = async () => {};

async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const target = new URL(req.url ?? '/', server!.base);
  if (target.pathname.endsWith('/events')) {
    eventReads.push(target.searchParams);
    await beforePage(eventReads.length);
  }
  const answer = await fetch(target, { method: req.method, headers: { accept: 'application/json' } });
  res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
  res.end(Buffer.from(await answer.arrayBuffer()));
}

beforeAll(async () => {
  execFileSync(process.execPath, [join(process.cwd(), 'scripts/build-cli.mjs'), '--out', cli]);
  server = (await startDevServer({ name: 'cli-big-run-e2e', port: pinnedPort() })) as typeof server;
  proxy = createServer((req, res) => void forward(req, res));
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((r) => proxy?.close(r));
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A run of `count` echo steps, 50 at a time, with `config` beside; its id. */
async function echoRun(count: number, goal: string, config: Record<string, unknown> = {}): Promise<string> {
  const steps = Array.from({ length: count }, (_, i) => ({
    id: `s${i}`,
    action: 'demo.echo',
    parameters: { i },
  }));
  const created = await fetch(`${server!.base}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      plan: { goal, steps },
      config: { execution_mode: 'parallel', max_parallel: 50, max_steps: count, ...config },
    }),
  });
  return ((await created.json()) as { run_id: string }).run_id;
}

/** A completed run of 500 echo steps: 1,500 events and more, two pages of 1,000. */
async function manyEvents(): Promise<{ runId: string; lastSeq: number }> {
  const run_id = await echoRun(500, 'many events');
  const ended = await fetch(`${server!.base}/v1/runs/${run_id}/wait?until=terminal&timeout_s=50`);
  const { run } = (await ended.json()) as { run: { status: string; last_seq: number } };
  expect(run.status).toBe('completed');
  return { runId: run_id, lastSeq: run.last_seq };
}

it('lists every event of a long run, asking for pages of at most 1,000', async () => {
  const { runId, lastSeq } = await manyEvents();
  expect(lastSeq).toBeGreaterThan(1500);
  eventReads = [];
  beforePage = async () => {};
  const r = await runCli(cli, ['events', runId, '--json'], { cwd: dir, url });
  expect(r.code).toBe(0);
  const seqs = r.out
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { seq: number }).seq);
  expect(seqs).toEqual(Array.from({ length: lastSeq }, (_, i) => i + 1));
  expect(eventReads.length).toBeGreaterThanOrEqual(2);
  expect(eventReads.every((q) => Number(q.get('limit')) > 0 && Number(q.get('limit')) <= 1000)).toBe(true);
}, 60_000);

it('has printed the pages it read when a later one fails: the run deleted while it was listed', async () => {
  const { runId } = await manyEvents();
  eventReads = [];
  // The second page is asked for after the run is gone: the API answers it 404.
  beforePage = async (n) => {
    if (n === 2) await fetch(`${server!.base}/v1/runs/${runId}`, { method: 'DELETE' });
  };
  const r = await runCli(cli, ['events', runId, '--json'], { cwd: dir, url });
  expect(r.code).toBe(1);
  const lines = r.out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { seq?: number; error?: { code: string } });
  // The first page, whole and in order, printed before the second was asked for; then the refusal
  // (--json says it on stdout, one JSON line).
  expect(lines.slice(0, -1).map((l) => l.seq)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
  expect(lines.at(-1)?.error?.code).toBe('not_found');
}, 60_000);

it('shows the start of a large output and says how long it is and where the whole is', async () => {
  const created = await fetch(`${server!.base}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      plan: {
        goal: 'a large output',
        steps: [{ id: 'big', action: 'demo.echo', parameters: { big: 'x'.repeat(500_000) } }],
      },
    }),
  });
  const { run_id } = (await created.json()) as { run_id: string };
  await fetch(`${server!.base}/v1/runs/${run_id}/wait?until=terminal&timeout_s=50`);
  const r = await runCli(cli, ['show', run_id], { cwd: dir, url });
  expect(r.code).toBe(0);
  const whole = await runCli(cli, ['show', run_id, '--json'], { cwd: dir, url });
  const run = JSON.parse(whole.out) as { final_output: { big: string } };
  expect(run.final_output.big.length).toBe(500_000);
  const output = r.out.split('\n').find((l) => l.startsWith('output: '));
  expect(output).toMatch(/^output: \{"big":"x+…/);
  expect(output?.length).toBeLessThan(2200);
  const characters = JSON.stringify(run.final_output).length;
  expect(output?.endsWith(` (${characters} characters; the whole: edgeplan show ${run_id} --json)`)).toBe(
    true,
  );
}, 60_000);

it('draws a fast run’s live view on a terminal a frame a tick, not a frame an event', async () => {
  // 1,500 echo steps 50 at a time, held for approval: the watch begins before it runs, and once it is
  // approved its 4,500 events and more come in a second or two, every one of them live.
  const run_id = await echoRun(1500, 'a fast run watched', { require_plan_approval: true });
  // On a pseudo-terminal (util-linux script), its input not one: the live view, drawn in place, asks
  // nothing (the test approves through the API).
  const command = `stty cols 120 rows 40; '${process.execPath}' '${cli}' watch ${run_id} < /dev/null`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: dir,
    env: { ...process.env, EDGEPLAN_URL: server!.base, NO_COLOR: '1' },
  });
  let out = '';
  let shown: () => void;
  const waiting = new Promise<void>((r) => (shown = r));
  child.stdout.on('data', (d: Buffer) => {
    out += String(d);
    if (out.includes('awaiting_approval')) shown();
  });
  const exited = new Promise((resolve) => child.on('close', resolve));
  await waiting;
  await fetch(`${server!.base}/v1/runs/${run_id}/approval`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ decision: 'approve' }),
  });
  expect(await exited).toBe(0);
  const run = (await (await fetch(`${server!.base}/v1/runs/${run_id}`)).json()) as {
    status: string;
    last_seq: number;
  };
  expect(run.status).toBe('completed');
  expect(run.last_seq).toBeGreaterThan(4500);
  // Each frame log-update writes to a terminal is wrapped in one "synchronized output" sequence
  // (and a frame the same as the last is not written). A frame an event wrote thousands; a frame a
  // tick writes one for each 80 ms the run took to follow — far fewer than a tenth of its events.
  const frames = out.split('\u001b[?2026h').length - 1;
  expect(frames).toBeGreaterThan(0);
  expect(frames).toBeLessThan(run.last_seq / 10);
}, 60_000);
