#!/usr/bin/env node
// A long soak of `wrangler dev`: does an isolate or a run object grow without bound? Mixed load for
// `--minutes` (runs of every kind — chains with conditions, TEA workflows with new templates,
// http.request to loopback, an MCP server's tool, human.input answered, approvals, retries, cancels,
// deletes — status and event reads, WebSocket watchers that drop, /mcp sessions, bad requests of every
// kind, wrong tokens), sampling every `--sample-seconds` the workerd processes' VmRSS and the isolate's
// V8 heap (wrangler's inspector). Prints each sample (the heap: the least read every 2 s since the last sample), then the growth per 1,000 runs after the warm-up
// (least squares over the samples after `--warmup-minutes`) and a verdict. Not part of `npm test`.
// Usage: npm run soak -- [--minutes=20] [--port=P] [--concurrency=6] [--sample-seconds=30] [--warmup-minutes=3] [--heap=false]
// (the inspector listens on P+1; without --port both are free ports).
import { startDevServer, freePort } from './dev-server.mjs';
import { soakClient } from './soak/client.mjs';
import { inspector, rssKiB, runsTheWorker, workerdPids } from './soak/memory.mjs';
import { SCENARIOS } from './soak/scenarios.mjs';
import { startTargets } from './soak/targets.mjs';

const arg = (name, fallback) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const minutes = arg('minutes', 20);
const concurrency = arg('concurrency', 6);
const sampleMs = arg('sample-seconds', 30) * 1000;
const warmupMs = arg('warmup-minutes', Math.min(3, minutes / 4)) * 60_000;
const port = arg('port', 0) || (await freePort());
const inspectorPort = arg('port', 0) ? port + 1 : await freePort();
/** Heap growth per 1,000 runs past which the verdict is "grows" (MiB); RSS is judged at twice it. */
const LIMIT_MIB = 1;

const TOKEN = 'soak-new';
process.on('SIGTERM', () => process.exit(143));

const targets = await startTargets();
const servers = JSON.stringify([{ name: 'soak', url: targets.mcpUrl }]);
const { base, pid, stop } = await startDevServer({
  name: 'edgeplan-soak',
  port,
  extraArgs: [
    '--log-level',
    'error',
    '--inspector-port',
    String(inspectorPort),
    '--var',
    `MCP_SERVERS:${servers}`,
    '--var',
    'HTTP_ALLOWLIST:127.0.0.1',
    '--var',
    `API_TOKEN:soak-old,${TOKEN}`,
  ],
});
const client = soakClient(base, TOKEN);
const runs = { created: 0, ended: 0, deleted: 0 };
const ctx = { api: client.api, note: client.note, base, token: TOKEN, targets, runs };
// --heap=false: RSS only, no inspector session (to see what the session itself costs).
const withHeap = !process.argv.includes('--heap=false');
const heapOf = withHeap ? await inspector(inspectorPort) : { heap: async () => null, close() {} };
const names = Object.keys(SCENARIOS);
const errands = Object.fromEntries(names.map((n) => [n, 0]));
const samples = [];
const t0 = Date.now();
const endAt = t0 + minutes * 60_000;

console.log(
  `soak: ${minutes} min on ${base} (inspector ${inspectorPort}), ${concurrency} at once, a sample every ${sampleMs / 1000} s`,
);
let workerPid = workerdPids(pid).find(runsTheWorker);
let proxyPid = workerdPids(pid).find((p) => !runsTheWorker(p));
console.log(
  `workerd ${workerPid}: the Worker and its run objects; workerd ${proxyPid}: wrangler's proxy (the dev port)`,
);
console.log('   min   runs  ended  requests  4xx   5xx   Worker RSS MiB  proxy RSS MiB  heap MiB');

// The heap read at one moment is mostly garbage not yet collected (it swings 30-80 MiB under this
// load); the least of the readings every 2 s since the last sample is what survived collection.
let floor = null;
const poll = setInterval(async () => {
  const h = await heapOf.heap();
  if (h !== null && (floor === null || h.used < floor.used)) floor = h;
}, 2_000);

async function sample() {
  if (rssKiB(workerPid) === 0) {
    // wrangler reloaded (a source file changed): a new runtime, memory counted from zero again.
    workerPid = workerdPids(pid).find(runsTheWorker);
    proxyPid = workerdPids(pid).find((p) => !runsTheWorker(p));
    console.log(`workerd restarted (a reload): now ${workerPid}; samples before and after do not compare`);
  }
  const now = await heapOf.heap();
  const heap = floor !== null && (now === null || floor.used < now.used) ? floor : now;
  floor = null;
  const s = {
    at: Date.now() - t0,
    runs: runs.created,
    ended: runs.ended,
    requests: client.counts.requests,
    rss: rssKiB(workerPid) / 1024,
    proxy: rssKiB(proxyPid) / 1024,
    heap: heap ? heap.used / 1048576 : null,
  };
  samples.push(s);
  const col = (v, w) =>
    (v === null ? 'n/a' : typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(1) : String(v)).padStart(
      w,
    );
  console.log(
    [
      col(s.at / 60_000, 6),
      col(s.runs, 6),
      col(s.ended, 6),
      col(s.requests, 9),
      col(client.counts['4xx'], 5),
      col(client.counts['5xx'], 5),
      col(s.rss, 16),
      col(s.proxy, 14),
      col(s.heap, 9),
    ].join(' '),
  );
}

let next = 0;
async function worker() {
  while (Date.now() < endAt) {
    const i = next++;
    const name = names[i % names.length];
    errands[name]++;
    try {
      await SCENARIOS[name](ctx, i);
    } catch (err) {
      client.note(`scenario ${name} #${i} threw`, err?.stack ?? String(err));
    }
  }
}

/** Least-squares slope of y over x. */
function slope(points) {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((a, p) => a + p[0], 0) / n;
  const my = points.reduce((a, p) => a + p[1], 0) / n;
  const sxy = points.reduce((a, p) => a + (p[0] - mx) * (p[1] - my), 0);
  const sxx = points.reduce((a, p) => a + (p[0] - mx) ** 2, 0);
  return sxx === 0 ? NaN : sxy / sxx;
}

try {
  await sample();
  const timer = setInterval(() => void sample(), sampleMs);
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
  clearInterval(timer);
  await sample();
  clearInterval(poll);

  const warm = samples.filter((s) => s.at >= warmupMs);
  const rssPer1k = slope(warm.map((s) => [s.runs, s.rss])) * 1000;
  const proxyPer1k = slope(warm.map((s) => [s.requests, s.proxy])) * 1000;
  const heapPoints = warm.filter((s) => s.heap !== null).map((s) => [s.runs, s.heap]);
  const heapPer1k = slope(heapPoints) * 1000;
  const [first, firstWarm, last] = [samples[0], warm[0] ?? samples.at(-1), samples.at(-1)];
  const mib = (v) => (v === null || v === undefined || Number.isNaN(v) ? 'n/a' : `${v.toFixed(1)} MiB`);
  console.log(
    '\nerrands run:',
    Object.entries(errands)
      .map(([n, c]) => `${n} ${c}`)
      .join(', '),
  );
  console.log(
    `runs: ${runs.created} created, ${runs.ended} seen ended, ${runs.deleted} deleted; requests: ${client.counts.requests} ` +
      `(2xx ${client.counts['2xx']}, 4xx ${client.counts['4xx']}, 5xx ${client.counts['5xx']}, failed ${client.counts.failed}); ` +
      `loopback served http ${targets.served.http}, mcp ${targets.served.mcp}`,
  );
  console.log(
    `Worker RSS: start ${mib(first.rss)}, warm ${mib(firstWarm.rss)}, end ${mib(last.rss)}, peak ${mib(Math.max(...samples.map((s) => s.rss)))}; after warm-up ${mib(rssPer1k)} per 1,000 runs`,
  );
  console.log(
    `heap: start ${mib(first.heap)}, warm ${mib(firstWarm.heap)}, end ${mib(last.heap)}; after warm-up ${mib(heapPer1k)} per 1,000 runs`,
  );
  console.log(
    `wrangler's proxy RSS (not edgeplan's code; local only): start ${mib(first.proxy)}, end ${mib(last.proxy)}; ${mib(proxyPer1k)} per 1,000 requests`,
  );
  if (client.problems.length > 0)
    console.log(`\nproblems (first ${client.problems.length}):\n  ${client.problems.join('\n  ')}`);
  const grows = heapPer1k > LIMIT_MIB || (Number.isNaN(heapPer1k) && rssPer1k > 2 * LIMIT_MIB);
  console.log(
    `\nverdict: ${grows ? 'GROWS' : 'flat'} (limit ${LIMIT_MIB} MiB of heap per 1,000 runs after warm-up` +
      `${Number.isNaN(heapPer1k) ? `; no heap samples, RSS judged at ${2 * LIMIT_MIB} MiB` : ''}); ` +
      `${client.counts['5xx'] + client.counts.failed} server errors or failed requests`,
  );
  process.exitCode = grows || client.counts['5xx'] + client.counts.failed > 0 ? 1 : 0;
} finally {
  clearInterval(poll);
  heapOf.close();
  stop();
  targets.close();
}
