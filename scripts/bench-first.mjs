#!/usr/bin/env node
/**
 * A run's fixed costs (#16), on a freshly started `wrangler dev` each trial: the first run after
 * start-up and a warm one (the third), each a plan of `demo.echo` then a 50 ms `demo.sleep`. Figures
 * from the client's clock and the run's event timestamps (one machine, one clock): POST sent →
 * `RunCreated`, → the first `ToolInvoked`, → the POST's response; the last `ToolReturned` →
 * `RunTerminated`. `/health`'s round trip is printed beside them: `wrangler dev`'s own floor for a
 * request (two workerd processes in the path).
 *
 * Usage: node scripts/bench-first.mjs [--trials=5]   (or npm run bench -- --only=first)
 */
import { startDevServer } from './dev-server.mjs';

const trials = Number(process.argv.find((a) => a.startsWith('--trials='))?.slice(9) ?? 5);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const plan = {
  goal: 'fixed costs',
  steps: [
    { id: 'a', action: 'demo.echo', parameters: { x: 1 }, dependencies: [] },
    { id: 'b', action: 'demo.sleep', parameters: { ms: 50 }, dependencies: ['a'] },
  ],
};

/** One run, POST to completion; the figures in ms. */
async function oneRun(base) {
  const t0 = now();
  const res = await fetch(`${base}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ plan }),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`POST /v1/runs: ${res.status} ${JSON.stringify(body)}`);
  const response = now() - t0;
  for (;;) {
    const s = await (await fetch(`${base}/v1/runs/${body.run_id}/status`)).json();
    if (s.run_status === 'completed') break;
    if (['failed', 'aborted', 'cancelled'].includes(s.run_status)) throw new Error(`run ${s.run_status}`);
    await sleep(20);
  }
  const { events } = await (await fetch(`${base}/v1/runs/${body.run_id}/events?limit=100`)).json();
  const at = (type) => Date.parse(events.findLast((e) => e.event_type === type).timestamp);
  const first = (type) => Date.parse(events.find((e) => e.event_type === type).timestamp);
  return {
    created: first('RunCreated') - t0,
    invoked: first('ToolInvoked') - t0,
    response,
    terminal: at('RunTerminated') - at('ToolReturned'),
  };
}

async function health(base) {
  const t0 = now();
  await (await fetch(`${base}/health`)).text();
  return now() - t0;
}

const firsts = [];
const warms = [];
const floors = [];
for (let i = 0; i < trials; i++) {
  const server = await startDevServer({ name: 'edgeplan-bench-first', extraArgs: ['--log-level', 'error'] });
  try {
    await sleep(1000); // start-up's own work settled: the first run is measured, not the server's boot
    firsts.push(await oneRun(server.base));
    await sleep(200);
    await oneRun(server.base);
    await sleep(200);
    warms.push(await oneRun(server.base));
    for (let k = 0; k < 5; k++) floors.push(await health(server.base));
  } finally {
    server.stop();
  }
}

const fmt = (rows, key) => {
  const xs = rows.map((r) => r[key]);
  return `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
};
console.log(`\na run's fixed costs (wrangler dev, ${trials} fresh servers; ms, median (range))`);
console.log(
  '  run                     POST → RunCreated  → first ToolInvoked  → POST response  last ToolReturned → RunTerminated',
);
for (const [name, rows] of [
  ['first after start-up', firsts],
  ['warm (third)', warms],
]) {
  console.log(
    `  ${name.padEnd(22)}  ${fmt(rows, 'created').padEnd(17)}  ${fmt(rows, 'invoked').padEnd(19)}  ${fmt(rows, 'response').padEnd(15)}  ${fmt(rows, 'terminal')}`,
  );
}
console.log(
  `  /health round trip (the floor of a request under wrangler dev): ${median(floors).toFixed(1)} ms`,
);
process.exit(0);
