#!/usr/bin/env node
/**
 * Time to first step of a streamed goal (#16): a scripted OpenAI-compatible endpoint on loopback
 * streams a plan as NDJSON step lines (seed 003), 300 ms apart; the figure is the time from the first
 * step line leaving the endpoint to that step's `ToolInvoked` in the run (same clock), and how much
 * of the plan was still streaming when the first step began. `wrangler dev` on this machine, median of 5.
 *
 * Usage: node scripts/bench-stream.mjs   (or npm run bench -- --only=stream)
 */
import { createServer } from 'node:http';
import { startDevServer } from './dev-server.mjs';

const GAP_MS = 300;
const STEPS = 4;
let firstLineAt = 0;
const chunk = (delta) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'scripted', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;

const llm = createServer((req, res) => {
  req.resume();
  req.on('end', async () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ role: 'assistant', content: '' }));
    for (let i = 0; i < STEPS; i++) {
      const step = {
        id: `s${i}`,
        description: `step ${i}`,
        action: 'demo.echo',
        parameters: { i },
        dependencies: [],
      };
      if (i === 0) firstLineAt = Date.now();
      res.write(chunk({ content: `${JSON.stringify({ type: 'step', step })}\n` }));
      await new Promise((r) => setTimeout(r, GAP_MS));
    }
    res.write(chunk({ content: '{"type":"finish"}\n' }));
    res.write(
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'scripted', choices: [], usage: { prompt_tokens: 80, completion_tokens: 30, total_tokens: 110 } })}\n\n`,
    );
    res.end('data: [DONE]\n\n');
  });
});
await new Promise((r) => llm.listen(0, '127.0.0.1', r));
const llmUrl = `http://127.0.0.1:${llm.address().port}/v1`;

const server = await startDevServer({
  name: 'edgeplan-bench-stream',
  extraArgs: [
    '--log-level',
    'error',
    '--var',
    `OPENAI_BASE_URL:${llmUrl}`,
    '--var',
    'OPENAI_API_KEY:sk-bench',
    '--var',
    'PLANNER_MODEL:scripted',
  ],
});
try {
  const samples = [];
  for (let k = 0; k < 6; k++) {
    const res = await fetch(`${server.base}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ goal: 'echo four things' }),
    });
    const { run_id } = await res.json();
    for (;;) {
      const r = await (await fetch(`${server.base}/v1/runs/${run_id}/status`)).json();
      if (['completed', 'failed', 'aborted', 'cancelled'].includes(r.run_status)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const { events } = await (await fetch(`${server.base}/v1/runs/${run_id}/events?limit=1000`)).json();
    const invoked = events.find((e) => e.event_type === 'ToolInvoked' && e.payload.step_id === 's0');
    const authored = events.find((e) => e.event_type === 'PlanAuthored');
    if (!invoked)
      throw new Error(`run ${run_id}: no ToolInvoked for s0 (${events.map((e) => e.event_type).join(', ')})`);
    if (k > 0)
      samples.push({
        ttfs: Date.parse(invoked.timestamp) - firstLineAt,
        before: Date.parse(authored.timestamp) - Date.parse(invoked.timestamp),
      });
  }
  samples.sort((a, b) => a.ttfs - b.ttfs);
  const mid = samples[Math.floor(samples.length / 2)];
  console.log(
    `streamed goal: first step line → its ToolInvoked ${mid.ttfs} ms median (range ${samples[0].ttfs}–${samples.at(-1).ttfs} ms); ` +
      `it began ${mid.before} ms before the plan finished streaming`,
  );
} finally {
  server.stop();
  llm.close();
}
process.exit(0);
