#!/usr/bin/env node
// The cost of an MCP tool against a native one, under `wrangler dev`: a real MCP server (the SDK's
// McpServer over Streamable HTTP, stateless, JSON responses) on loopback in this process, named in
// MCP_SERVERS; a chain of 50 steps of `mcp.bench.echo` against the same chain of `demo.echo`. Reported
// per step: client-observed (POST /v1/runs → the run seen completed, polled every 20 ms) and
// server-side (started → completed), plus the tool's own latency as ToolReturned records it. Median
// of 5 runs a kind. Usage: node scripts/bench-mcp.mjs [--steps=50] [--samples=5]
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { startDevServer } from './dev-server.mjs';
import { serveMcp } from './mcp-loopback.mjs';

const arg = (name, fallback) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const steps = arg('steps', 50);
const samples = arg('samples', 5);

const mcp = await serveMcp(() => {
  const server = new McpServer({ name: 'edgeplan-bench', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns its input', inputSchema: { i: z.number() }, outputSchema: { i: z.number() } },
    ({ i }) => ({ content: [{ type: 'text', text: String(i) }], structuredContent: { i } }),
  );
  return server;
});
const servers = JSON.stringify([{ name: 'bench', url: `http://127.0.0.1:${mcp.address().port}/mcp` }]);

const { base, stop } = await startDevServer({
  name: 'edgeplan-bench-mcp',
  extraArgs: ['--log-level', 'error', '--var', `MCP_SERVERS:${servers}`],
});
try {
  console.log(
    `\nMCP tool vs native tool (wrangler dev): a chain of ${steps} steps, per step, median of ${samples}`,
  );
  await run('demo.echo'); // warm up: the isolate, the object namespace, the MCP listing
  await run('mcp.bench.echo');
  const rows = {};
  for (const tool of ['demo.echo', 'mcp.bench.echo']) {
    const runs = [];
    for (let i = 0; i < samples; i++) runs.push(await run(tool));
    rows[tool] = {
      client: median(runs.map((r) => r.client)) / steps,
      server: median(runs.map((r) => r.server)) / steps,
      tool: median(runs.flatMap((r) => r.latencies)),
    };
  }
  const [native, viaMcp] = [rows['demo.echo'], rows['mcp.bench.echo']];
  for (const [name, r] of Object.entries(rows))
    console.log(
      `  ${name.padEnd(16)} ${r.client.toFixed(2)} ms/step client-observed, ${r.server.toFixed(2)} ms/step ` +
        `server-side, tool latency ${r.tool.toFixed(1)} ms`,
    );
  console.log(
    `  MCP / native: ${(viaMcp.client / native.client).toFixed(2)}× client-observed, ` +
      `${(viaMcp.server / native.server).toFixed(2)}× server-side; ` +
      `+${(viaMcp.server - native.server).toFixed(2)} ms a call`,
  );
} finally {
  stop();
  mcp.close();
}

async function run(tool) {
  const plan = {
    goal: `chain of ${tool}`,
    steps: Array.from({ length: steps }, (_, i) => ({
      id: `c${i}`,
      action: tool,
      parameters: { i },
      dependencies: i ? [`c${i - 1}`] : [],
    })),
  };
  const t0 = performance.now();
  const res = await fetch(`${base}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ plan, config: { max_steps: steps } }),
  });
  const created = await res.json();
  if (res.status !== 201) throw new Error(`POST /v1/runs: ${res.status} ${JSON.stringify(created)}`);
  for (;;) {
    const s = await (await fetch(`${base}/v1/runs/${created.run_id}/status`)).json();
    if (s.run_status === 'completed') break;
    if (['failed', 'aborted', 'cancelled'].includes(s.run_status))
      throw new Error(`run ${created.run_id} (${tool}) ended ${s.run_status}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const client = performance.now() - t0;
  const r = await (await fetch(`${base}/v1/runs/${created.run_id}`)).json();
  const events = await (await fetch(`${base}/v1/runs/${created.run_id}/events?limit=1000`)).json();
  const latencies = events.events
    .filter((e) => e.event_type === 'ToolReturned')
    .map((e) => e.payload.latency_ms)
    .filter((n) => typeof n === 'number');
  return { client, server: Date.parse(r.completed_at) - Date.parse(r.started_at), latencies };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
