/**
 * An agent driving a run end to end through `/mcp`, against `wrangler dev` started here: the official
 * SDK's Client over Streamable HTTP starts a run whose step asks a `human.input` question, waits for
 * the question with wait_for_run, reads it from get_run_events, answers it with answer_input while
 * another wait_for_run is open (woken by the run's events in workerd, not by polling), and reads the
 * rest of the trace after the seq it saw; and reads a run too big for one answer in part (get_run_value, step_ids).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without declarations
import { startDevServer } from '../../scripts/dev-server.mjs';
import { pinnedPort } from './pinned-port';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Result = { isError?: boolean; structuredContent?: Json };

let server: { base: string; stop(): Promise<void> };
let client: Client;

beforeAll(async () => {
  // EDGEPLAN_E2E_PORT pins the port (a machine that gives each runner a range); else a free one.
  const port = pinnedPort();
  server = (await startDevServer({ name: 'mcp-agent', port })) as typeof server;
  client = new Client({ name: 'e2e-agent', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`)));
}, 120_000);

afterAll(async () => {
  await client?.close();
  await server?.stop();
});

async function call(name: string, args: Json): Promise<Result> {
  const r = (await client.callTool({ name, arguments: args })) as Result;
  expect(r.isError, `${name}: ${JSON.stringify(r.structuredContent)}`).toBeUndefined();
  return r;
}

describe('an agent drives a run through /mcp on wrangler dev', { timeout: 90_000 }, () => {
  it('starts a run, waits for its question, answers it, waits for the end, and reads the trace', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['start_run', 'wait_for_run', 'get_run_events', 'answer_input']),
    );
    const started = await call('start_run', {
      plan: {
        goal: 'greet someone',
        steps: [
          { id: 'ask', action: 'human.input', parameters: { prompt: 'Whom shall I greet?' } },
          { id: 'greet', action: 'demo.echo', parameters: { hello: '{{ steps.ask.output }}' } },
        ],
      },
      idempotency_key: crypto.randomUUID(),
    });
    const runId = started.structuredContent!.run_id as string;

    const waiting = await call('wait_for_run', { run_id: runId, until: 'waiting', timeout_s: 30 });
    expect(waiting.structuredContent).toMatchObject({ timed_out: false, run: { status: 'awaiting_input' } });
    const trace = await call('get_run_events', { run_id: runId });
    const asked = (trace.structuredContent!.events as Json[]).findLast(
      (e) => e.event_type === 'InputRequested',
    );
    expect(asked?.payload).toMatchObject({ step_id: 'ask', prompt: 'Whom shall I greet?' });

    // A wait open while the answer goes in: the run's events end it.
    const ending = call('wait_for_run', { run_id: runId, until: 'terminal', timeout_s: 45 });
    const answered = await call('answer_input', { run_id: runId, input: 'Ada', step_id: 'ask' });
    expect(answered.structuredContent).toMatchObject({ run_id: runId });
    const done = (await ending).structuredContent!;
    expect(done).toMatchObject({
      timed_out: false,
      run: { status: 'completed', step_results: { greet: { hello: 'Ada' } } },
    });

    const rest = await call('get_run_events', { run_id: runId, after: asked!.seq });
    const types = (rest.structuredContent!.events as Json[]).map((e) => e.event_type);
    expect(types).toContain('InputReceived');
    expect(types.at(-1)).toBe('RunTerminated');
    expect(rest.structuredContent!.next_after).toBe(done.run.last_seq);
  });

  it('reads a run too big for one answer in part, then a step and a value it left out', async () => {
    // 300 steps of 200 characters: about 150,000 characters of run JSON, over the 60,000 one answer carries.
    const long = 'y'.repeat(5000);
    const steps = Array.from({ length: 300 }, (_, i) => ({
      id: `s${i}`,
      action: 'demo.echo',
      parameters: { text: i === 1 ? long : String(i).padEnd(200, '.') },
    }));
    const started = await call('start_run', {
      plan: { goal: 'many steps', steps },
      config: { max_steps: 300 },
    });
    const runId = started.structuredContent!.run_id as string;
    const done = await call('wait_for_run', { run_id: runId, timeout_s: 45 });
    const run = done.structuredContent!.run as Json;
    expect(run.status).toBe('completed');
    expect(run.partial).toMatchObject({ steps_total: 300 });
    expect(run.partial.steps_shown).toBeLessThan(300);
    expect(run.counts.completed).toBe(300);
    expect(run.step_results.s1).toMatchObject({ $elided: { ref: 'steps.s1.output' } });

    const last = await call('get_run', { run_id: runId, step_ids: ['s299'] });
    expect(last.structuredContent!.step_results).toEqual({ s299: { text: '299'.padEnd(200, '.') } });
    const value = await call('get_run_value', { run_id: runId, ref: 'steps.s1.output.text' });
    expect(value.structuredContent).toEqual({ ref: 'steps.s1.output.text', value: long });
  });
});
