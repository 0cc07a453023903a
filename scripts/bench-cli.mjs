#!/usr/bin/env node
/**
 * The `edgeplan` command's figures (#12): start-up (`edgeplan --help`, median of 15 runs, against
 * `node -e ""` on the same machine, so the ratio is what the CLI adds), and the latency from an
 * event's commit (its `timestamp`, taken by the run's object) to `edgeplan events <id> --follow`
 * printing it, under `wrangler dev` on this machine (same clock).
 *
 * Usage: node scripts/bench-cli.mjs   (or npm run bench -- --only=cli)
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startDevServer } from './dev-server.mjs';

const root = new URL('..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'edgeplan-bench-cli-'));
const cli = join(dir, 'edgeplan.mjs');
execFileSync(process.execPath, [join(root, 'scripts/build-cli.mjs'), '--out', cli]);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
function timed(args) {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: exit ${r.status}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}
const help = [];
const bare = [];
for (let i = 0; i < 15; i++) {
  bare.push(timed(['-e', '']));
  help.push(timed([cli, '--help']));
}
console.log(
  `edgeplan --help: ${median(help).toFixed(0)} ms median (node alone ${median(bare).toFixed(0)} ms; ` +
    `the CLI adds ${(median(help) - median(bare)).toFixed(0)} ms) — target < 300 ms`,
);

const server = await startDevServer({ name: 'edgeplan-bench-cli', extraArgs: ['--log-level', 'error'] });
try {
  const steps = Array.from({ length: 18 }, (_, i) => ({
    id: `s${i}`,
    action: 'demo.sleep',
    parameters: { ms: 20 },
    ...(i > 0 ? { dependencies: [`s${i - 1}`] } : {}),
  }));
  // Warm the isolate first: the figure is the steady state, not the first request after start-up.
  await fetch(`${server.base}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ plan: { goal: 'warm', steps: steps.slice(0, 2) } }),
  });
  const res = await fetch(`${server.base}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ plan: { goal: 'latency', steps }, config: { require_plan_approval: true } }),
  });
  const { run_id } = await res.json();
  const child = spawn(process.execPath, [cli, 'events', run_id, '--follow', '--json'], {
    env: { ...process.env, EDGEPLAN_URL: server.base },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const latencies = [];
  let approved = false;
  const lines = createInterface({ input: child.stdout });
  const finished = new Promise((resolve) => child.on('exit', resolve));
  for await (const line of lines) {
    let e;
    try {
      e = JSON.parse(line);
    } catch {
      throw new Error(`not an event line: ${line}`);
    }
    // Events committed while the CLI was connected; the backlog before approval is not live.
    if (approved) latencies.push(Date.now() - Date.parse(e.timestamp));
    if (e.event_type === 'ApprovalRequested' && !approved) {
      approved = true;
      await fetch(`${server.base}/v1/runs/${run_id}/approval`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'approve' }),
      });
    }
  }
  await finished;
  console.log(
    `event commit → printed by \`edgeplan events --follow\`: p50 ${pct(latencies, 0.5)} ms, p95 ` +
      `${pct(latencies, 0.95)} ms, max ${Math.max(...latencies)} ms over ${latencies.length} events ` +
      '(WebSocket; ms resolution)',
  );
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
