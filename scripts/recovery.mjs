#!/usr/bin/env node
// Crash recovery under `wrangler dev` (issue #10): a run of `demo.counter` steps is started, the whole
// wrangler process group is SIGKILLed while a step is mid-flight (its counter already incremented,
// its result not yet reported), wrangler dev is started again on the same state and port, and the
// run is timed from the restarted server's first /health answer to the run's `completed_at`.
//
// Two ways to wait after the restart, alternated:
//   poll       GET /v1/runs/:id every 250 ms from the moment /health answers (each GET loads the
//              run's object);
//   untouched  nothing reaches the run's object: completion is read from the D1 run index
//              (GET /v1/runs), so only the object's own alarm can wake it.
// Every counter key is unique to its step, so each step must report value 1; afterwards a witness run
// increments every key once more (new idempotency keys) and must read 2 for every completed step (at
// most 2 for the others), so an effect applied twice anywhere — reported or not — shows up.
//
// Usage: npm run recovery [-- --trials=3 --only=sequential|parallel --modes=poll,untouched --keep-events
//   --config='{"retry_failed_steps":0}']
// (--keep-events writes every trial's run and events to a JSON file, failed trials' always are; --config
// is merged into the crashed runs' config.) Every trial restarts wrangler dev (about 10 s on 2 busy
// cores): the default 3 trials per line take about 7 minutes, --trials=5 about 11.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migratedState, startDevServer } from './dev-server.mjs';

const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const trials = Number(arg('trials') ?? 3);
const only = arg('only');
const keepEvents = process.argv.includes('--keep-events');
const extraConfig = JSON.parse(arg('config') ?? '{}');
const MODES = (arg('modes') ?? 'poll,untouched').split(',');
const TERMINAL = ['completed', 'failed', 'aborted', 'cancelled'];

const CASES = [
  {
    name: 'sequential',
    label: 'chain of 10 × 300 ms demo.counter (inline)',
    plan: (tag) => counterDag(tag, 1, 10, 300, 'chain'),
    config: { execution_mode: 'sequential' },
    // Mid-flight: three steps done, the fourth running; 100 ms in, its increment has been applied.
    killWhen: (s) => s.completed >= 3 && s.running >= 1,
    killAfterMs: 100,
    timeoutMs: 60_000,
  },
  {
    name: 'parallel',
    label: '3 layers × 10 × 1000 ms demo.counter (queue, max_parallel 10)',
    plan: (tag) => counterDag(tag, 3, 10, 1000, 'layers'),
    config: { execution_mode: 'parallel', max_parallel: 10 },
    // The second layer in flight, 300 ms into its 1000 ms.
    killWhen: (s) => s.completed >= 10 && s.running >= 1,
    killAfterMs: 300,
    timeoutMs: 90_000,
  },
].filter((c) => !only || c.name === only);

const persist = migratedState('edgeplan-recovery');
const report = join(tmpdir(), `edgeplan-recovery-${process.pid}`);
let server = null;
const cleanup = () => {
  server?.stop();
  rmSync(persist, { recursive: true, force: true });
};
process.on('exit', cleanup);
const started = Date.now();
const results = [];
try {
  server = await startDevServer({ name: 'edgeplan-recovery', persist, extraArgs: ['--log-level', 'error'] });
  // Warm up: the isolate, the queue consumer, the counters object.
  await finish(
    server.base,
    await create(server.base, counterDag('warm', 2, 5, 0, 'layers'), {
      execution_mode: 'parallel',
      max_parallel: 5,
    }),
  );
  for (const c of CASES) {
    console.log(`\n${c.name}: ${c.label}; SIGKILL mid-step, restart on the same state and port`);
    for (let i = 0; i < trials * MODES.length; i++) {
      const mode = MODES[i % MODES.length];
      const r = await trial(c, mode, `${c.name}-${i}-${Date.now().toString(36)}`);
      results.push(r);
      console.log(
        `  ${mode.padEnd(9)} ${r.run_id}  killed with ${r.atKill.completed}/${r.steps} done, ` +
          `${r.atKill.running} running; restart ${ms(r.restartMs)}; ` +
          (r.status === 'completed'
            ? `completed ${ms(r.recoveryMs)} after /health (first progress ${ms(r.firstProgressMs)})`
            : `NOT COMPLETED: ${r.status}`) +
          `; counters > 1: ${r.doubled.length}, witness ≠ 2: ${r.witnessBad.length}` +
          (r.woken ? `; ${r.woken}` : ''),
      );
      if (r.dump) console.log(`            events: ${r.dump}`);
    }
  }
} finally {
  cleanup();
}

console.log(
  `\nsummary (median, range in brackets; ${trials} runs per line; total ${ms(Date.now() - started)})`,
);
for (const c of CASES) {
  for (const mode of MODES) {
    const rs = results.filter((r) => r.case === c.name && r.mode === mode);
    const done = rs.filter((r) => r.status === 'completed');
    const rec = done.map((r) => r.recoveryMs);
    const first = done.map((r) => r.firstProgressMs).filter((x) => x !== null);
    const restart = rs.map((r) => r.restartMs);
    console.log(
      `  ${c.name.padEnd(10)} ${mode.padEnd(9)} /health → completed ${stats(rec)}; ` +
        `/health → first progress ${stats(first)}; kill → /health ${stats(restart)}; ` +
        `completed ${done.length}/${rs.length}; counters > 1: ${sum(rs, 'doubled')}; ` +
        `witness ≠ 2: ${sum(rs, 'witnessBad')}`,
    );
  }
}
const failed = results.filter((r) => r.status !== 'completed' || r.doubled.length || r.witnessBad.length);
if (failed.length) {
  console.log(`\n${failed.length} trial(s) did not recover cleanly; events under ${report}`);
  process.exitCode = 1;
}

/** One crash: start the run, kill mid-step, restart, wait for the end, check the counters. */
async function trial(c, mode, tag) {
  const plan = c.plan(tag);
  const run_id = await create(server.base, plan, { ...c.config, ...extraConfig });
  // Until the kill point; these GETs are before the crash, so they do not affect the figure.
  let atKill;
  for (const end = Date.now() + 30_000; ;) {
    const s = counts(await get(server.base, `/v1/runs/${run_id}`));
    if (c.killWhen(s)) {
      atKill = s;
      break;
    }
    if (TERMINAL.includes(s.status) || Date.now() > end)
      throw new Error(`${run_id}: never reached the kill point (${JSON.stringify(s)})`);
    await sleep(25);
  }
  await sleep(c.killAfterMs);
  const killedAt = Date.now();
  await server.kill();
  server = await startDevServer({
    name: 'edgeplan-recovery',
    persist,
    port: server.port,
    extraArgs: ['--log-level', 'error'],
  });
  const upAt = server.upAt;
  let run = await waitEnd(run_id, mode, upAt + c.timeoutMs);
  let woken = null;
  if (!TERMINAL.includes(run.status) && mode === 'untouched') {
    // Not finished by the alarm alone: does a request get it going?
    woken = `not ended by the alarm within ${c.timeoutMs / 1000} s; then polled`;
    run = await waitEnd(run_id, 'poll', Date.now() + 30_000);
  }
  const events = (await get(server.base, `/v1/runs/${run_id}/events?limit=1000`)).events;
  const after = events.find((e) => Date.parse(e.timestamp) >= upAt);
  const values = Object.entries(run.step_results ?? {}).map(([id, r]) => [id, r?.value]);
  const doubled = values.filter(([, v]) => v !== 1).map(([id, v]) => `${id}=${v}`);
  // The witness: every key once more, under new idempotency keys; an earlier double shows as 3.
  const witness = await finish(
    server.base,
    await create(
      server.base,
      {
        goal: `witness ${tag}`,
        steps: plan.steps.map((s) => ({
          id: s.id,
          action: 'demo.counter',
          parameters: { key: s.parameters.key },
        })),
      },
      { execution_mode: 'parallel', max_parallel: plan.steps.length },
    ),
  );
  // A completed step's counter must read 2 now; one that never completed (a failed run) 1 or 2.
  const witnessBad = Object.entries(witness.step_results)
    .filter(([id, r]) => (run.step_statuses[id] === 'completed' ? r?.value !== 2 : !(r?.value <= 2)))
    .map(([id, r]) => `${id}=${r?.value}`);
  const r = {
    case: c.name,
    mode,
    run_id,
    steps: plan.steps.length,
    atKill,
    status: run.status,
    restartMs: upAt - killedAt,
    recoveryMs: run.completed_at ? Date.parse(run.completed_at) - upAt : null,
    firstProgressMs: after ? Date.parse(after.timestamp) - upAt : null,
    doubled,
    witnessBad,
    woken,
  };
  if (keepEvents || run.status !== 'completed' || doubled.length || witnessBad.length) {
    mkdirSync(report, { recursive: true });
    r.dump = join(report, `${run_id}.json`);
    writeFileSync(r.dump, JSON.stringify({ trial: r, run, events }, null, 2));
  }
  return r;
}

/** Polls until the run ends or `deadline`; `untouched` reads only the D1 run index, not the object. */
async function waitEnd(run_id, mode, deadline) {
  for (;;) {
    if (mode === 'poll') {
      const run = await get(server.base, `/v1/runs/${run_id}`);
      if (TERMINAL.includes(run.status)) return run;
    } else {
      const { runs } = await get(server.base, `/v1/runs?limit=20`);
      const row = runs.find((x) => x.run_id === run_id);
      if (row && TERMINAL.includes(row.status)) return get(server.base, `/v1/runs/${run_id}`);
    }
    if (Date.now() > deadline) return get(server.base, `/v1/runs/${run_id}`);
    await sleep(250);
  }
}

/** `layers` layers of `width` counters (each layer after the whole previous one), or one chain. */
function counterDag(tag, layers, width, delay_ms, shape) {
  const steps = [];
  for (let l = 0; l < layers; l++) {
    for (let w = 0; w < width; w++) {
      const id = `s${l}_${w}`;
      const prev = shape === 'chain' ? (w > 0 ? [`s${l}_${w - 1}`] : []) : [];
      const deps = l === 0 ? prev : Array.from({ length: width }, (_, i) => `s${l - 1}_${i}`);
      steps.push({
        id,
        action: 'demo.counter',
        parameters: { key: `${tag}:${id}`, ...(delay_ms ? { delay_ms } : {}) },
        dependencies: deps,
      });
    }
  }
  return { goal: `recovery ${tag}`, steps };
}

async function create(base, plan, config) {
  const res = await fetch(`${base}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ plan, config: { max_steps: 1000, ...config } }),
  });
  const body = await res.json();
  if (res.status !== 201) throw new Error(`POST /v1/runs: ${res.status} ${JSON.stringify(body)}`);
  return body.run_id;
}

async function finish(base, run_id) {
  for (const end = Date.now() + 60_000; ;) {
    const run = await get(base, `/v1/runs/${run_id}`);
    if (TERMINAL.includes(run.status)) {
      if (run.status !== 'completed') throw new Error(`${run_id} ended ${run.status}`);
      return run;
    }
    if (Date.now() > end) throw new Error(`${run_id} did not end within 60 s`);
    await sleep(100);
  }
}

async function get(base, path) {
  const res = await fetch(`${base}${path}`);
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

function counts(run) {
  const st = Object.values(run.step_statuses ?? {});
  return {
    status: run.status,
    completed: st.filter((s) => s === 'completed').length,
    running: st.filter((s) => s === 'running').length,
  };
}

function stats(xs) {
  if (xs.length === 0) return '–';
  const s = [...xs].sort((a, b) => a - b);
  return `${ms(s[Math.floor(s.length / 2)])} [${ms(s[0])}–${ms(s[s.length - 1])}]`;
}

function sum(rs, key) {
  return rs.reduce((n, r) => n + r[key].length, 0);
}

function ms(x) {
  return x === null || x === undefined ? '–' : `${(x / 1000).toFixed(2)} s`;
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}
