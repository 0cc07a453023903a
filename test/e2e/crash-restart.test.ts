/**
 * Runs on the newest paths across a real crash: `wrangler dev`'s whole process group is SIGKILLed while
 * (1) a goal's plan is half streamed in from the LLM, one streamed step already run, (2) an MCP tool
 * call is with the server (the official SDK on loopback), (3) an approval webhook is with its
 * receiver, and (4) a child run's MCP step is with the server — then started again on the same state and port. Every loopback server lives in this
 * process and outlasts the kill; each holds its call until the kill, then answers it (to no one).
 * After the restart every run must finish by itself, each step run and recorded once, planning done
 * once, and the webhook sent again as docs/operating.md and README promise (same `webhook-id`, same
 * single-use link).
 */
import {
  createServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ndjson, startScriptedLlm } from './scripted-llm-server';
// @ts-expect-error -- a plain .mjs script without declarations
import { migratedState, startDevServer } from '../../scripts/dev-server.mjs';
// @ts-expect-error -- a plain .mjs script without declarations
import { serveMcp } from '../../scripts/mcp-loopback.mjs';
import { gapFree, serverApi } from './server-api';
import { inspectorArgs, pinnedPort } from './pinned-port';

type Dev = { base: string; port: number; persist: string; stop(): void; kill(): Promise<void> };
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** This file's port (and its inspector's, the one after it) when EDGEPLAN_E2E_PORT pins it; else a free one. */
const PORT = pinnedPort();
const TAG = `crash-${Date.now().toString(36)}`;

/** Something that waits until `release()`: a call caught half-way while the server dies. */
function gate() {
  let release = () => undefined as void;
  const held = new Promise<void>((r) => (release = r));
  return { held, release };
}

// ---- loopback servers (outlive the kill) --------------------------------------------------------

const llm = await startScriptedLlm();
const streamGate = gate();

/** The MCP server's `hold` tool: every call recorded with its `_meta`; the first of each tag waits. */
const mcpCalls: { tag: string; key: unknown; attempt: unknown; answered: boolean }[] = [];
const callsOf = (tag: string) => mcpCalls.filter((c) => c.tag === tag);
const mcpGate = gate();
const mcpHttp = (await serveMcp(() => {
  const server = new McpServer({ name: 'crash', version: '1.0.0' });
  server.registerTool(
    'hold',
    {
      description: 'Answers once released',
      inputSchema: { tag: z.string() },
      outputSchema: { call: z.number() },
    },
    async ({ tag }, extra) => {
      const call = {
        tag,
        key: extra._meta?.['edgeplan/idempotency_key'],
        attempt: extra._meta?.['edgeplan/attempt'],
        answered: false,
      };
      mcpCalls.push(call);
      if (callsOf(tag).length === 1) await mcpGate.held;
      call.answered = true;
      const n = callsOf(tag).indexOf(call) + 1;
      return { content: [{ type: 'text', text: `call ${n}` }], structuredContent: { call: n } };
    },
  );
  return server;
})) as HttpServer;

/** The approval-webhook receiver: every delivery recorded; the first one waits. */
const deliveries: { id: string | undefined; body: Json; answered: boolean }[] = [];
const hookGate = gate();
const hooks = createServer((req: IncomingMessage, res: ServerResponse) => {
  let text = '';
  req.on('data', (c: Buffer) => (text += c.toString()));
  req.on('end', () => {
    const d = {
      id: req.headers['webhook-id'] as string | undefined,
      body: JSON.parse(text) as Json,
      answered: false,
    };
    deliveries.push(d);
    void (deliveries.length === 1 ? hookGate.held : Promise.resolve()).then(() => {
      d.answered = true;
      res.end('ok');
    });
  });
});
await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
const loop = (s: HttpServer) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

const ARGS = [
  ...inspectorArgs(PORT),
  '--log-level',
  'error',
  '--var',
  'HTTP_ALLOWLIST:127.0.0.1',
  '--var',
  `OPENAI_BASE_URL:${llm.url}`,
  '--var',
  'OPENAI_API_KEY:sk-scripted',
  '--var',
  'PLANNER_MODEL:scripted-1',
  '--var',
  'WEBHOOK_SECRET:whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=',
  '--var',
  `MCP_SERVERS:${JSON.stringify([{ name: 'crash', url: `${loop(mcpHttp)}/mcp` }])}`,
];

// ---- the API ------------------------------------------------------------------------------------

let server: Dev;
const persist = migratedState('edgeplan-crash') as string;

const { call, get } = serverApi(() => server.base);
async function create(body: unknown): Promise<string> {
  const r = await call('POST', '/v1/runs', body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.run_id as string;
}
/** Polls until `done` holds, for up to `ms` (a restart on a busy machine is slow: generous). */
async function until<T>(
  what: string,
  read: () => Promise<T>,
  done: (v: T) => boolean,
  ms = 60_000,
): Promise<T> {
  for (const end = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 100))) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > end)
      throw new Error(`${what}: not within ${ms} ms (last: ${JSON.stringify(v).slice(0, 500)})`);
  }
}
const TERMINAL = ['completed', 'failed', 'aborted', 'cancelled'];
const ended = (id: string) =>
  until(
    `run ${id} ended`,
    () => get(`/v1/runs/${id}`),
    (r) => TERMINAL.includes(r.status as string),
  );
const eventsOf = async (id: string) => (await get(`/v1/runs/${id}/events?limit=1000`)).events as Json[];

// ---- the crash ----------------------------------------------------------------------------------

const runs = { stream: '', mcp: '', approval: '', parent: '' };

beforeAll(async () => {
  server = (await startDevServer({ name: 'edgeplan-crash', persist, port: PORT, extraArgs: ARGS })) as Dev;
  // (1) A goal whose plan streams in: `a` (a counter) first, the rest held until the kill; streamed
  // in full when asked again.
  const steps = [
    {
      id: 'a',
      description: 'count',
      action: 'demo.counter',
      parameters: { key: `${TAG}-a` },
      dependencies: [],
    },
    { id: 'b', description: 'echo', action: 'demo.echo', parameters: { id: 'b' }, dependencies: ['a'] },
  ];
  const lines = [...ndjson(steps), '{"type":"finish"}\n'];
  llm.script(TAG, [{ pieces: lines, held: streamGate.held }, { pieces: lines }]);
  runs.stream = await create({ goal: `count, then echo (${TAG})` });
  // (2) A plan whose MCP step is with the server.
  runs.mcp = await create({
    plan: {
      steps: [
        { id: 'call', action: 'mcp.crash.hold', parameters: { tag: 'mcp' } },
        {
          id: 'after',
          action: 'demo.echo',
          parameters: { n: '{{ steps.call.output.call }}' },
          dependencies: ['call'],
        },
      ],
    },
  });
  // (3) A plan awaiting approval whose webhook is with its receiver.
  runs.approval = await create({
    plan: { steps: [{ id: 'go', action: 'demo.echo', parameters: { go: true } }] },
    config: {
      require_plan_approval: true,
      approval: { webhook_url: `${loop(hooks)}/hook`, timeout_s: 600, default_action: 'reject' },
    },
  });
  // (4) A parent whose child run (agent.dispatch) has its MCP step with the server.
  runs.parent = await create({
    plan: {
      steps: [
        {
          id: 'child',
          action: 'agent.dispatch',
          parameters: {
            plan: { steps: [{ id: 'c1', action: 'mcp.crash.hold', parameters: { tag: 'child' } }] },
          },
        },
      ],
    },
  });
  await until(
    'every run at its crash point',
    async () => ({
      a: (await get(`/v1/runs/${runs.stream}`)).step_statuses?.a as unknown,
      mcp: callsOf('mcp').length,
      child: callsOf('child').length,
      hooks: deliveries.length,
    }),
    (s) => s.a === 'completed' && s.mcp === 1 && s.child === 1 && s.hooks === 1,
  );
  await server.kill();
  // Answered now, to a server that is gone.
  streamGate.release();
  mcpGate.release();
  hookGate.release();
  server = (await startDevServer({
    name: 'edgeplan-crash',
    persist,
    port: server.port,
    extraArgs: ARGS,
  })) as Dev;
}, 180_000);

afterAll(async () => {
  server?.stop();
  rmSync(persist, { recursive: true, force: true });
  await llm.close();
  mcpHttp.close();
  hooks.close();
});

const per = (events: Json[], type: string) =>
  events.filter((e) => e.event_type === type).map((e) => `${e.payload.step_id}#${e.payload.attempt}`);

describe('across a SIGKILL of wrangler dev and a restart on the same state', () => {
  it('plans a goal cut mid-stream once, running no streamed step twice', async () => {
    const run = await ended(runs.stream);
    expect(run.status).toBe('completed');
    expect(run.step_results).toEqual({ a: { key: `${TAG}-a`, value: 1 }, b: { id: 'b' } });
    // The model was asked twice (the stream died with the server), the run planned once.
    expect(llm.calls.filter((c) => c.tag === TAG)).toHaveLength(2);
    const events = await eventsOf(runs.stream);
    gapFree(events);
    expect(events.filter((e) => e.event_type === 'PlanAuthored')).toHaveLength(1);
    expect(per(events, 'ToolInvoked')).toEqual(['a#1', 'b#1']);
    expect(per(events, 'ToolReturned')).toEqual(['a#1', 'b#1']);
    const versions = (await get(`/v1/runs/${runs.stream}/plans`)).versions as Json[];
    expect(versions).toHaveLength(1);
    // The planning trace names that plan, with one answer that made it (the cut stream made none).
    const trace = await get(`/v1/runs/${runs.stream}/planning`);
    expect(trace.plan_id).toBe(versions[0]!.plan_id);
    expect((trace.attempts as Json[]).filter((a) => a.outcome === 'ok')).toHaveLength(1);
  });

  it('makes an MCP call cut short again as the same attempt and records one result', async () => {
    const run = await ended(runs.mcp);
    expect(run.status).toBe('completed');
    const key = `${runs.mcp}:call`;
    expect(callsOf('mcp').map((c) => [c.key, c.attempt, c.answered])).toEqual([
      [key, 1, true],
      [key, 1, true],
    ]);
    expect(run.step_results.call).toEqual({ call: 2 });
    expect(run.step_results.after).toEqual({ n: 2 });
    const events = await eventsOf(runs.mcp);
    gapFree(events);
    expect(per(events, 'ToolReturned')).toEqual(['call#1', 'after#1']);
  });

  it('sends a webhook cut short again with the same id and link, which approves the run once', async () => {
    const [first, again] = await until(
      'the webhook sent again',
      () => Promise.resolve([...deliveries]),
      (d) => d.length >= 2,
    );
    expect(again!.id).toBe(first!.id);
    expect(again!.body.approval_url).toBe(first!.body.approval_url);
    // The link the receiver got before the crash approves the run.
    const link = new URL(first!.body.approval_url as string);
    const approve = () => call('POST', `${link.pathname}${link.search}`, { decision: 'approve' });
    expect((await approve()).status).toBe(200);
    const run = await ended(runs.approval);
    expect(run.status).toBe('completed');
    // Used: refused with a stable code, and nothing granted twice.
    const reused = await approve();
    expect(reused.status).toBe(410);
    expect(reused.body.error.code).toBe('gone');
    const events = await eventsOf(runs.approval);
    gapFree(events);
    expect(events.filter((e) => e.event_type === 'ApprovalGranted')).toHaveLength(1);
    // Every delivery the object recorded had one id: no second webhook beyond the re-send.
    expect(new Set(deliveries.map((d) => d.id)).size).toBe(1);
  });

  it('finishes a child run cut mid-step, one child with its parent fields, reported to its parent once', async () => {
    const run = await ended(runs.parent);
    expect(run.status).toBe('completed');
    const child = run.step_results.child as Json;
    const listed = (await get(`/v1/runs?limit=100&parent_run_id=${runs.parent}`)).runs as Json[];
    expect(listed.map((r) => [r.run_id, r.parent_run_id, r.parent_step_id])).toEqual([
      [child.run_id, runs.parent, 'child'],
    ]);
    const childRun = await get(`/v1/runs/${child.run_id as string}`);
    expect(childRun).toMatchObject({
      status: 'completed',
      parent_run_id: runs.parent,
      parent_step_id: 'child',
    });
    expect(childRun.step_results.c1).toEqual({ call: 2 });
    const key = `${child.run_id as string}:c1`;
    expect(callsOf('child').map((c) => [c.key, c.attempt])).toEqual([
      [key, 1],
      [key, 1],
    ]);
    const events = await eventsOf(runs.parent);
    gapFree(events);
    expect(per(events, 'ToolReturned')).toEqual(['child#1']);
  });
});
