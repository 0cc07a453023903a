#!/usr/bin/env node
// Run creation under `wrangler dev`: the client-observed time from sending `POST /v1/runs` to having
// its whole 201 response, for a 10,000-step plan (100 chains of `demo.echo` steps, each reading the
// one above it) and a 100,000-step one (independent steps: with references it would not fit the
// API's 5 MiB request limit). The runs start executing at once (parallel, 10 at a time), as they
// would for a client; each is cancelled once its response is in. Median of 3 a size; target: the
// 100,000-step run under 3 s.
// Usage: node scripts/bench-create.mjs [--sizes=10000,100000] [--samples=3]
import { startDevServer } from './dev-server.mjs';

const arg = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const sizes = arg('sizes', '10000,100000').split(',').map(Number);
const samples = Number(arg('samples', '3'));

const { base, stop } = await startDevServer({
  name: 'edgeplan-bench-create',
  extraArgs: ['--log-level', 'error'],
});
try {
  console.log('\nrun creation (wrangler dev): client-observed POST /v1/runs → whole 201 response');
  await create(base, body(100)); // warm up the isolate, the object namespace, the queue
  for (const n of sizes) {
    const request = body(n);
    const runs = [];
    for (let i = 0; i < samples; i++) runs.push(await create(base, request));
    const total = median(runs.map((r) => r.total));
    const headers = median(runs.map((r) => r.headers));
    console.log(
      `  ${n.toLocaleString('en-US').padStart(7)} steps  ${seconds(total)} s median of ${samples} ` +
        `(${seconds(Math.min(...runs.map((r) => r.total)))}–${seconds(Math.max(...runs.map((r) => r.total)))}; ` +
        `status line after ${seconds(headers)} s); request ${(request.length / 2 ** 20).toFixed(1)} MiB` +
        (n >= 100_000 ? '; target < 3 s' : ''),
    );
  }
} finally {
  stop();
}

/** The request body for an `n`-step run. */
function body(n) {
  const width = 100;
  const chained = n <= 10_000;
  const steps = Array.from({ length: n }, (_, i) =>
    chained
      ? {
          id: `s${i}`,
          action: 'demo.echo',
          parameters: i >= width ? { i, prev: `{{ steps.s${i - width}.output.i }}` } : { i },
          dependencies: i >= width ? [`s${i - width}`] : [],
        }
      : { id: `s${i}`, action: 'demo.echo' },
  );
  return JSON.stringify({
    plan: { goal: `create ${n}`, steps },
    config: { max_steps: Math.max(n, 20), execution_mode: 'parallel', max_parallel: 10 },
  });
}

/** POSTs a run: the times (ms) to the status line and to the whole response; then cancels it. */
async function create(base, request) {
  const t0 = performance.now();
  const res = await fetch(`${base}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: request,
  });
  const headers = performance.now() - t0;
  const created = await res.json();
  const total = performance.now() - t0;
  if (res.status !== 201)
    throw new Error(`POST /v1/runs: ${res.status} ${JSON.stringify(created).slice(0, 500)}`);
  await fetch(`${base}/v1/runs/${created.run_id}/cancel`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  return { headers, total };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function seconds(ms) {
  return (ms / 1000).toFixed(2);
}
