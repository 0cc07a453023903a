#!/usr/bin/env node
// Benchmarks, reported as ratios (these machines are noisy): validation time by plan size, then
// execution under `wrangler dev` — parallel DAGs against their critical path, and per-step overhead
// of a chain of instant steps — then run creation (scripts/bench-create.mjs) and an MCP tool's cost
// against a native one (scripts/bench-mcp.mjs).
// Usage: npm run bench [-- --only=validate|exec|create|mcp|cli|dashboard|peers|stream|first|object]
import { spawnSync } from 'node:child_process';
import { freePort, startDevServer } from './dev-server.mjs';

const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
const root = new URL('..', import.meta.url).pathname;

if (!only || only === 'validate') {
  const r = spawnSync(
    process.execPath,
    ['--experimental-strip-types', '--no-warnings', 'scripts/bench-validate.ts'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  if (r.status !== 0) process.exit(r.status ?? 1);
}
if (!only || only === 'exec') await benchExecution();
for (const [name, script] of [
  ['create', 'scripts/bench-create.mjs'],
  ['mcp', 'scripts/bench-mcp.mjs'],
  ['cli', 'scripts/bench-cli.mjs'],
  ['dashboard', 'scripts/bench-dashboard.mjs'],
  ['peers', 'scripts/bench-peers.mjs'],
  ['stream', 'scripts/bench-stream.mjs'],
  ['first', 'scripts/bench-first.mjs'],
  ['object', 'scripts/bench-object.mjs'],
]) {
  if (only && only !== name) continue;
  const r = spawnSync(process.execPath, [script], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

async function benchExecution() {
  const inspectorPort = await freePort();
  const { base, pid, stop } = await startDevServer({
    name: 'edgeplan-bench',
    extraArgs: ['--log-level', 'error', '--inspector-port', String(inspectorPort)],
  });
  try {
    console.log('\nexecution (wrangler dev, local Queues/DO/D1); ratio = run time / critical path');
    // Warm up the isolate, the queue consumer and the object namespace.
    await runPlan(base, dag(2, 5, 10), { execution_mode: 'parallel', max_parallel: 20 });
    const rows = [];
    for (const [layers, width, ms, target] of [
      [10, 20, 100, 1.1],
      [4, 10, 300, 1.05],
    ]) {
      const samples = [];
      for (let i = 0; i < 5; i++) {
        const t = await runPlan(base, dag(layers, width, ms), {
          execution_mode: 'parallel',
          max_parallel: width,
        });
        samples.push(t / (layers * ms));
      }
      rows.push({
        case: `${layers}×${width} × ${ms} ms sleep`,
        ratio: median(samples),
        min: Math.min(...samples),
        max: Math.max(...samples),
        target,
      });
    }
    const chainSamples = [];
    for (let i = 0; i < 3; i++)
      chainSamples.push((await runPlan(base, chain(200), { max_steps: 1000 })) / 200);
    for (const r of rows) {
      console.log(
        `  ${r.case.padEnd(24)} ${r.ratio.toFixed(3)}× critical path, median of 5 ` +
          `(${r.min.toFixed(3)}–${r.max.toFixed(3)}; target ≤ ${r.target}×)`,
      );
    }
    console.log(
      `  ${'chain of 200 instant'.padEnd(24)} ${median(chainSamples).toFixed(2)} ms/step (target ≤ 1.5)`,
    );
    // The worker, the consumer and every run object share one isolate under wrangler dev, so its JS
    // heap bounds what the 10,000-step run's object holds; sampled while the run executes.
    const heap = await heapSampler(inspectorPort);
    const rssBefore = workerdRss(pid);
    const heapBefore = await heap.used(true);
    const sampling = heap.sample(100);
    const big = await runPlan(
      base,
      dag(100, 100, 0, false),
      { execution_mode: 'parallel', max_parallel: 100, max_steps: 20000 },
      600_000,
    );
    const heapPeak = await sampling.stop();
    const rssAfter = workerdRss(pid);
    heap.close();
    console.log(`  ${'10,000-step DAG'.padEnd(24)} completed in ${(big / 1000).toFixed(1)} s`);
    console.log(
      `  ${''.padEnd(24)} isolate JS heap ${mib(heapBefore)} MiB before, peak ${mib(heapPeak)} MiB during ` +
        `(shared by the worker, the consumer and every object; a Durable Object may use 128 MB)`,
    );
    console.log(`  workerd resident memory  ${rssBefore} MiB before, ${rssAfter} MiB after (whole runtime)`);
  } finally {
    stop();
  }
}

/**
 * `layers` layers of `width` sleep steps; every step waits for the whole previous layer (`full`), or
 * only for the step above it.
 */
function dag(layers, width, ms, full = true) {
  const steps = [];
  for (let l = 0; l < layers; l++) {
    for (let w = 0; w < width; w++) {
      const deps =
        l === 0 ? [] : full ? Array.from({ length: width }, (_, i) => `s${l - 1}_${i}`) : [`s${l - 1}_${w}`];
      steps.push({
        id: `s${l}_${w}`,
        action: ms > 0 ? 'demo.sleep' : 'demo.echo',
        parameters: ms > 0 ? { ms } : {},
        dependencies: deps,
      });
    }
  }
  return { goal: `dag ${layers}x${width}`, steps };
}

function chain(n) {
  return {
    goal: `chain ${n}`,
    steps: Array.from({ length: n }, (_, i) => ({
      id: `c${i}`,
      action: 'demo.echo',
      parameters: { i },
      dependencies: i ? [`c${i - 1}`] : [],
    })),
  };
}

/** Runs a plan to completion; returns the server-side run time in ms (started → completed). */
async function runPlan(base, plan, config, timeoutMs = 120_000) {
  const res = await fetch(`${base}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ plan, config: { max_steps: 10_000, ...config } }),
  });
  const created = await res.json();
  if (res.status !== 201) throw new Error(`POST /v1/runs: ${res.status} ${JSON.stringify(created)}`);
  const end = Date.now() + timeoutMs;
  for (;;) {
    const r = await (await fetch(`${base}/v1/runs/${created.run_id}/status`)).json();
    if (['completed', 'failed', 'aborted', 'cancelled'].includes(r.run_status)) {
      if (r.run_status !== 'completed') throw new Error(`run ${created.run_id} ended ${r.run_status}`);
      break;
    }
    if (Date.now() > end) throw new Error(`run ${created.run_id} timed out`);
    // The figure is the server's own started → completed time, so polling only needs to notice the
    // end; polling often would load the very object being measured.
    await new Promise((r) => setTimeout(r, 200));
  }
  const run = await (await fetch(`${base}/v1/runs/${created.run_id}`)).json();
  return Date.parse(run.completed_at) - Date.parse(run.started_at);
}

function mib(bytes) {
  return (bytes / 2 ** 20).toFixed(1);
}

/**
 * The isolate's JS heap through wrangler dev's inspector (Chrome DevTools protocol): `used(gc)` reads
 * it (after a full collection if asked), `sample(ms)` keeps the peak until stopped.
 */
async function heapSampler(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  // The inspector proxy only accepts DevTools' origin.
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl, {
    headers: { Origin: 'https://devtools.devprod.cloudflare.dev' },
  });
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve, { once: true });
    ws.addEventListener('error', () => reject(new Error('inspector connection failed')), { once: true });
  });
  let id = 0;
  const waiting = new Map();
  ws.addEventListener('message', (m) => {
    const d = JSON.parse(String(m.data));
    if (d.id !== undefined && waiting.has(d.id)) {
      waiting.get(d.id)(d.result);
      waiting.delete(d.id);
    }
  });
  const call = (method, params = {}) =>
    new Promise((resolve) => {
      const i = ++id;
      waiting.set(i, resolve);
      ws.send(JSON.stringify({ id: i, method, params }));
    });
  const used = async (gc = false) => {
    if (gc) await call('HeapProfiler.collectGarbage');
    return (await call('Runtime.getHeapUsage')).usedSize;
  };
  return {
    used,
    sample(ms) {
      let peak = 0;
      let running = true;
      const loop = (async () => {
        while (running) {
          peak = Math.max(peak, await used());
          await new Promise((r) => setTimeout(r, ms));
        }
      })();
      return {
        stop: async () => {
          running = false;
          await loop;
          return Math.max(peak, await used());
        },
      };
    },
    close: () => ws.close(),
  };
}

/** Resident memory (MiB) of the workerd processes in wrangler dev's process group. */
function workerdRss(pgid) {
  const r = spawnSync('ps', ['-o', 'rss=,comm=', '-g', String(pgid)], { encoding: 'utf8' });
  const kib = r.stdout
    .split('\n')
    .filter((l) => l.includes('workerd'))
    .reduce((sum, l) => sum + Number(l.trim().split(/\s+/)[0] ?? 0), 0);
  return Math.round(kib / 1024);
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
