#!/usr/bin/env node
// Chaos under `wrangler dev` (beyond scripts/recovery.mjs, which covers plain chains and layers of
// demo.counter): rounds in which one run of every scenario below is started at a random offset, the
// whole wrangler process group is SIGKILLed at a random moment (each round's "focus" scenario picks
// the moment: mid-stream, right after POST /input, around the webhook delivery, …), wrangler dev is
// started again on the same state (--persist-to) and port, and every run is then left alone (its end is
// read from the D1 run index only, so only its own alarm can wake it) and checked.
//
// Scenarios (each run's demo.counter keys and loopback paths are unique to it):
//   stream    a goal planned by a scripted OpenAI-compatible endpoint on loopback that streams NDJSON
//             step lines slowly (demo.counter steps with delays): killed mid-stream or mid-execution
//   replan    a streamed goal one of whose steps fails for good, so on_step_failure replan asks the
//             endpoint for a revision (the revision adds a counter step)
//   approval  require_plan_approval with a webhook to a loopback receiver that approves through the
//             link it got (and retries the approval while the server is down)
//   input     a human.input step answered with POST /input, killed right after the answer
//   dispatch  agent.dispatch of a child plan and a hierarchical sub-plan step, then a rollup step
//   retries   demo.flaky with backoff retries, a permanently failing step with a fallback_action
//   retry     a run that failed, POST /retry, killed right after
//   cancel    a chain of slow counters, POST /cancel, killed right after
//   http      http.request POSTs to a loopback server that counts requests per idempotency key and
//             answers slowly
//   delete    a goal run with a child run (agent.dispatch) and a sub-plan step, ended, then DELETEd:
//             killed right after the answer or while the deletion is under way. Checked: a run still
//             readable has lost nothing (children, index row, KV copies); a hidden one is finished
//             within 75 s by its own alarm (its storage is polled from the state's files, no request);
//             a client that got no answer DELETEs again; then every id answers 404 (run, events,
//             plans, state), the list leaves it out, and D1 (index row, plan versions, planning
//             attempts) and KV (plan copies) hold nothing for it or its children
//   retention the same run with RUN_RETENTION_DAYS=0.0001 (8.64 s), killed around the moment its
//             retention alarm fires; nothing may be asked of it after the restart, and it (children
//             too) must be gone within 75 s. Every run of a server is kept that short, so this
//             scenario gets a server (and rounds) of its own
//   mcp       mcp.<server>.<tool> steps against a real MCP server (the official SDK, loopback) whose
//             tool counts calls per idempotency key and answers slowly, killed while a call is with
//             it: one successful result per step, and it is an answer the server gave for that key;
//             no call after the result was recorded. A repeated call (same key, the server keeps no
//             dedup) is what a server must dedup, and is shown, not counted as a failure
//   lapse     a human.input with a short timeout_ms and retries: 0, nobody answering, killed around
//             its deadline: the run fails by itself, asked once, and the step after it never runs
// Checks after every round, for every run: the expected terminal status with no request to the run
// after the restart; every demo.counter key applied once (a witness run increments each again and must
// read 2; a cancelled run's keys may read 1); events' seq gap-free from 1 and no duplicated logical
// event (PlanAuthored, ToolReturned per version/step/attempt, ApprovalGranted, InputReceived per
// answer, RunTerminated per start); GET /state?at=<last seq> equal to GET /v1/runs/:id (status, step
// statuses and results); GET /v1/runs shows the final status; scenario checks (every webhook
// delivery of a run had one webhook-id, no http.request arrived after its step's result was
// recorded, the input's answer is the step's output, …).
//
// Usage: node scripts/chaos.mjs [--rounds=9] [--only=stream,input] [--seed=N] [--port=8791]
//   [--keep] (every run's events to a JSON file; failed runs' always are). Not part of `npm test`:
//   each round restarts wrangler dev (~10–15 s on 2 busy cores); 9 rounds take about 5 minutes, and
//   retention's rounds (a server of their own) about 30 s each. --port P uses P+1 for the inspector.
//   Run with the project's Node (PATH=node_modules/.bin:$PATH): the storage checks need node:sqlite.
//   Round r's focus is scenario r (mod their number): --rounds=12 gives each of the 12 sharing a
//   server one round whose kill it times (the default 9 leaves delete, mcp and lapse as bystanders).
import { createServer } from 'node:http';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { nothingStored, storedFor } from './chaos-storage.mjs';
import { freePort, migratedState, startDevServer } from './dev-server.mjs';
import { serveMcp } from './mcp-loopback.mjs';

const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ROUNDS = Number(arg('rounds') ?? 9);
const ONLY = arg('only')?.split(',');
const KEEP = process.argv.includes('--keep');
let seed = Number(arg('seed') ?? Date.now() % 100_000);
const TERMINAL = ['completed', 'failed', 'aborted', 'cancelled'];
const report = join(tmpdir(), `edgeplan-chaos-${process.pid}`);

/** A small seeded PRNG (mulberry32), so a failing round can be replayed with --seed. */
function rnd() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const between = (a, b) => Math.round(a + rnd() * (b - a));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------------
// Loopback: the scripted LLM, the webhook receiver and the counting HTTP server, in this process (they
// survive the kills).

const llmPlans = new Map(); // tag → { steps, revision? }
const llmCalls = new Map(); // tag → [{ kind, at }]
const webhooks = new Map(); // run_id → [{ id, at, body }]
const sideHits = new Map(); // idempotency key → [{ at, path }]
let server = null;

const chunk = (delta, extra = {}) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'scripted', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;

const loop = createServer((req, res) => {
  let text = '';
  req.on('data', (c) => (text += c));
  req.on('end', () => {
    handle(req, res, text).catch((err) => {
      res.writeHead(500);
      res.end(String(err));
    });
  });
});

async function handle(req, res, text) {
  const url = new URL(req.url, 'http://127.0.0.1');
  if (url.pathname === '/v1/chat/completions') return llm(req, res, text);
  if (url.pathname.startsWith('/hook/')) {
    const runId = JSON.parse(text).run_id;
    const list = webhooks.get(runId) ?? [];
    list.push({ id: req.headers['webhook-id'], at: Date.now(), body: JSON.parse(text) });
    webhooks.set(runId, list);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
    // The approver decides a moment later through the link it got, as a person would.
    void approveVia(JSON.parse(text).approval_url, between(0, 1500));
    return;
  }
  if (url.pathname.startsWith('/side/')) {
    const key = req.headers['idempotency-key'] ?? '(none)';
    const list = sideHits.get(key) ?? [];
    list.push({ at: Date.now(), path: url.pathname });
    sideHits.set(key, list);
    await sleep(Number(url.searchParams.get('delay') ?? 0));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, key }));
    return;
  }
  res.writeHead(404);
  res.end();
}

/** The scripted OpenAI-compatible endpoint: a streamed plan, or (after a failure) a revision. */
async function llm(req, res, text) {
  const body = JSON.parse(text);
  const tag = /chaos-[a-z0-9]+-[a-z0-9]+/.exec(text)?.[0];
  const script = tag && llmPlans.get(tag);
  if (!script) {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `no script for this prompt (${tag})` } }));
    return;
  }
  const revision = script.revision && text.includes('fails (fail_times');
  const calls = llmCalls.get(tag) ?? [];
  calls.push({ kind: revision ? 'revision' : 'plan', at: Date.now(), stream: !!body.stream });
  llmCalls.set(tag, calls);
  const steps = revision ? script.revision : script.steps;
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'c',
        object: 'chat.completion',
        created: 0,
        model: 'scripted',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: JSON.stringify({ steps }) },
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 50, completion_tokens: 50, total_tokens: 100 },
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(chunk({ role: 'assistant', content: '' }));
  for (const step of steps) {
    await sleep(script.gap);
    if (res.destroyed) return;
    res.write(chunk({ content: `${JSON.stringify({ type: 'step', step })}\n` }));
  }
  res.write(chunk({ content: '{"type":"finish"}\n' }));
  res.write(
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'scripted', choices: [], usage: { prompt_tokens: 80, completion_tokens: 30, total_tokens: 110 } })}\n\n`,
  );
  res.end('data: [DONE]\n\n');
}

/** POSTs approve to an approval link, again while the server is down; records the answers. */
const approvals = new Map(); // run_id → [{ status, at }]
async function approveVia(link, delay) {
  await sleep(delay);
  const u = new URL(link);
  const runId = u.pathname.split('/')[3];
  for (const end = Date.now() + 90_000; Date.now() < end;) {
    try {
      const r = await fetch(`${server.base}${u.pathname}${u.search}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'approve' }),
      });
      const list = approvals.get(runId) ?? [];
      list.push({ status: r.status, at: Date.now(), body: await r.text() });
      approvals.set(runId, list);
      return;
    } catch {
      await sleep(200); // the server is down: try again
    }
  }
}

await new Promise((r) => loop.listen(0, '127.0.0.1', r));
const loopBase = `http://127.0.0.1:${loop.address().port}`;

// A team's MCP server (the official SDK, stateless Streamable HTTP on loopback): `tally {delay_ms}`
// counts its calls per idempotency key (`_meta["edgeplan/idempotency_key"]`) and answers slowly with
// which call it was. It keeps no dedup of its own, so what it saw is what a server would have to dedup.
const mcpCalls = new Map(); // idempotency key → [{ at, attempt, n, answeredAt? }]
const mcpHttp = await serveMcp(() => {
  const s = new Server({ name: 'chaos', version: '1.0.0' }, { capabilities: { tools: {} } });
  s.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: 'tally',
        description: 'Counts its calls per idempotency key',
        inputSchema: { type: 'object', properties: { delay_ms: { type: 'number' } } },
      },
    ],
  }));
  s.setRequestHandler(CallToolRequestSchema, async (req) => {
    const meta = req.params._meta ?? {};
    const key = String(meta['edgeplan/idempotency_key'] ?? '(none)');
    const list = mcpCalls.get(key) ?? [];
    const call = { at: Date.now(), attempt: meta['edgeplan/attempt'], n: list.length + 1 };
    list.push(call);
    mcpCalls.set(key, list);
    await sleep(Number(req.params.arguments?.delay_ms ?? 0));
    call.answeredAt = Date.now();
    return { content: [{ type: 'text', text: JSON.stringify({ key, call: call.n }) }] };
  });
  return s;
});
const MCP_SERVERS = JSON.stringify([
  { name: 'chaos', url: `http://127.0.0.1:${mcpHttp.address().port}/mcp` },
]);

// ---------------------------------------------------------------------------------------------------
// The API, tolerant of the server being down (a user's client tries again).

async function call(method, path, body, { retry = true } = {}) {
  for (const end = Date.now() + 90_000; ;) {
    try {
      const res = await fetch(`${server.base}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      let json;
      try {
        json = JSON.parse(text);
      } catch {
        json = text;
      }
      return { status: res.status, body: json };
    } catch (err) {
      if (!retry || Date.now() > end) throw err;
      await sleep(200);
    }
  }
}
const get = async (path) => {
  const r = await call('GET', path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
};
async function create(body) {
  const r = await call('POST', '/v1/runs', body);
  if (r.status !== 201) throw new Error(`POST /v1/runs: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.run_id;
}
async function until(runId, pred, ms = 30_000) {
  for (const end = Date.now() + ms; ;) {
    const run = await get(`/v1/runs/${runId}`);
    if (pred(run)) return run;
    if (Date.now() > end) throw new Error(`${runId}: condition not met within ${ms} ms (${run.status})`);
    await sleep(50);
  }
}

const counter = (tag, id, delay_ms = 0, deps = []) => ({
  id,
  description: `count ${id}`,
  action: 'demo.counter',
  parameters: { key: `${tag}:${id}`, ...(delay_ms ? { delay_ms } : {}) },
  dependencies: deps,
});

/**
 * A goal run (planned by the scripted LLM, so it has planning attempts) with a child run
 * (agent.dispatch) and a sub-plan step (a second child run), for the deletion scenarios.
 */
async function parentWithChildren(tag) {
  const steps = [
    counter(tag, 'p0'),
    {
      id: 'child',
      description: 'a child run',
      action: 'agent.dispatch',
      parameters: { plan: { steps: [counter(tag, 'c1', 100), counter(tag, 'c2', 0, ['c1'])] } },
      dependencies: ['p0'],
    },
    {
      id: 'sub',
      description: 'a sub-plan',
      action: 'demo.echo',
      subplan: { steps: [counter(tag, 's1', 100)] },
      dependencies: ['p0'],
    },
    counter(tag, 'p1', 0, ['child', 'sub']),
  ];
  llmPlans.set(tag, { steps, gap: 20 });
  const id = await create({ goal: `count, then forget ${tag}`, config: { execution_mode: 'parallel' } });
  return { id, keys: ['p0', 'c1', 'c2', 's1', 'p1'].map((k) => `${tag}:${k}`) };
}

/**
 * What a run about to be deleted has: its children (from its steps' results), every run's plan ids,
 * and what storage holds for each (read after each run's plan version was read once, which puts its
 * KV copy in place). Problems if the storage check would see nothing to begin with.
 */
async function beforeDeletion(run) {
  const children = Object.values(run.step_results ?? {})
    .map((v) => v?.run_id)
    .filter((v) => typeof v === 'string');
  const ids = [run.run_id, ...children];
  const plans = {};
  const problems = [];
  if (children.length !== 2) problems.push(`${children.length} child runs, expected 2`);
  for (const id of ids) {
    const { versions } = await get(`/v1/runs/${id}/plans`);
    plans[id] = versions.map((v) => v.plan_id);
    for (const v of versions) await get(`/v1/runs/${id}/plans/${v.version}`);
  }
  // The index row is written within 250 ms of a change.
  await sleep(400);
  const stored = Object.fromEntries(ids.map((id) => [id, storedFor(persist, id, plans[id])]));
  for (const id of ids) {
    const s = stored[id];
    if (s.index_rows !== 1 || s.plan_versions === 0 || s.kv_keys.length === 0)
      problems.push(`before deletion, ${id} has ${JSON.stringify(s)} stored`);
  }
  if (stored[run.run_id].planning_attempts === 0)
    problems.push('before deletion, no planning attempts stored');
  return { ids, plans, stored, problems };
}

/** Whether nothing is stored for any of the runs any more (read from the state's files, no request). */
const allGone = (b) => b.ids.every((id) => nothingStored(storedFor(persist, id, b.plans[id])));

/** Polls the state's files (never the API) until every run is gone, up to `ms`; whether they went. */
async function goneWithin(b, ms) {
  for (const end = Date.now() + ms; ; await sleep(500)) {
    if (allGone(b)) return true;
    if (Date.now() > end) return false;
  }
}

/** Every run of `b` answers 404 everywhere, the list leaves it out, and storage holds nothing for it. */
async function checkDeleted(b) {
  const p = [];
  const { runs } = await get('/v1/runs?limit=100');
  for (const id of b.ids) {
    for (const path of ['', '/events', '/plans', '/plans/1', '/state'])
      if ((await call('GET', `/v1/runs/${id}${path}`)).status !== 404) p.push(`GET ${id}${path} is not 404`);
    if (runs.some((r) => r.run_id === id)) p.push(`the list still shows ${id}`);
    const s = storedFor(persist, id, b.plans[id]);
    if (!nothingStored(s)) p.push(`${id} still has ${JSON.stringify(s)} stored`);
  }
  return p;
}

// ---------------------------------------------------------------------------------------------------
// Scenarios. start(tag) starts the run(s) and returns { runs: [{id, expect}], keys, trigger? , act? };
// `trigger` resolves at the moment this scenario wants the kill near (when it is the round's focus);
// `check(ctx, run, events)` returns problems specific to the scenario.

const SCENARIOS = {
  stream: {
    async start(tag) {
      const steps = [
        counter(tag, 'a', 300),
        counter(tag, 'b', 300),
        counter(tag, 'c', 300, ['a']),
        counter(tag, 'd', 300, ['b', 'c']),
        counter(tag, 'e', 0, ['d']),
      ];
      llmPlans.set(tag, { steps, gap: between(150, 500) });
      const id = await create({ goal: `count things ${tag}`, config: { execution_mode: 'parallel' } });
      return {
        runs: [{ id, expect: 'completed' }],
        keys: steps.map((s) => s.parameters.key),
        trigger: sleep(between(100, 3500)),
      };
    },
    check(ctx, run) {
      const p = [];
      const calls = llmCalls.get(ctx.tag) ?? [];
      if (calls.length === 0) p.push('the LLM was never called');
      if (Object.keys(run.step_results ?? {}).length !== 5)
        p.push(`step_results has ${Object.keys(run.step_results ?? {}).length} steps, not 5`);
      ctx.note = `${calls.length} LLM call(s)`;
      return p;
    },
  },
  replan: {
    async start(tag) {
      const steps = [
        counter(tag, 'a', 200),
        {
          id: 'bad',
          description: 'fails for good',
          action: 'demo.flaky',
          parameters: { fail_times: 99, key: `${tag}:bad`, permanent: true },
          dependencies: ['a'],
        },
        counter(tag, 'c', 0, ['bad']),
      ];
      const revision = [counter(tag, 'a', 200), counter(tag, 'fixed', 300, ['a'])];
      llmPlans.set(tag, { steps, revision, gap: between(100, 400) });
      const id = await create({
        goal: `count and recover ${tag}`,
        config: { retry_failed_steps: 0 },
      });
      return {
        runs: [{ id, expect: 'completed' }],
        keys: [`${tag}:a`, `${tag}:fixed`],
        trigger: sleep(between(200, 3000)),
      };
    },
    check(ctx, run) {
      const p = [];
      if (run.revision_count !== 1) p.push(`revision_count ${run.revision_count}, expected 1`);
      if (run.step_results?.fixed?.value !== 1) p.push(`fixed = ${JSON.stringify(run.step_results?.fixed)}`);
      ctx.note = `${(llmCalls.get(ctx.tag) ?? []).map((c) => c.kind).join('+')}`;
      return p;
    },
  },
  approval: {
    async start(tag) {
      const plan = { goal: `approve ${tag}`, steps: [counter(tag, 'a', 200), counter(tag, 'b', 0, ['a'])] };
      const id = await create({
        plan,
        config: {
          require_plan_approval: true,
          approval: { webhook_url: `${loopBase}/hook/${tag}`, timeout_s: 600, default_action: 'reject' },
        },
      });
      const trigger = (async () => {
        for (const end = Date.now() + 20_000; Date.now() < end;) {
          if (webhooks.has(id)) break;
          await sleep(20);
        }
        await sleep(between(0, 1600));
      })();
      return { runs: [{ id, expect: 'completed' }], keys: plan.steps.map((s) => s.parameters.key), trigger };
    },
    check(ctx, run, events) {
      const p = [];
      const id = ctx.runs[0].id;
      const got = webhooks.get(id) ?? [];
      if (got.length === 0) p.push('no webhook delivered');
      const ids = new Set(got.map((w) => w.id));
      if (ids.size > 1) p.push(`webhook deliveries carried ${ids.size} webhook-ids: ${[...ids].join(', ')}`);
      const okAnswers = (approvals.get(id) ?? []).filter((a) => a.status === 200);
      const granted = events.filter((e) => e.event_type === 'ApprovalGranted');
      if (okAnswers.length > 0 && granted.length !== 1)
        p.push(`approval answered 200 but ${granted.length} ApprovalGranted`);
      ctx.note = `${got.length} deliveries, approvals ${(approvals.get(id) ?? []).map((a) => a.status).join(',')}`;
      return p;
    },
  },
  input: {
    async start(tag) {
      const plan = {
        steps: [
          counter(tag, 'a'),
          { id: 'ask', action: 'human.input', parameters: { prompt: 'name?' }, dependencies: ['a'] },
          {
            id: 'b',
            action: 'demo.counter',
            parameters: { key: `${tag}:b`, delay_ms: 200 },
            dependencies: ['ask'],
          },
          {
            id: 'use',
            action: 'demo.echo',
            parameters: { name: '{{ steps.ask.output.name }}' },
            dependencies: ['b'],
          },
        ],
      };
      const id = await create({ plan });
      const ctx = { runs: [{ id, expect: 'completed' }], keys: [`${tag}:a`, `${tag}:b`], answers: [] };
      ctx.trigger = (async () => {
        await sleep(between(0, 1000));
        await until(id, (r) => r.status === 'awaiting_input');
        const r = await call(
          'POST',
          `/v1/runs/${id}/input`,
          { input: { name: tag } },
          { retry: false },
        ).catch((e) => ({ status: 0, body: String(e) }));
        ctx.answers.push(r.status);
        await sleep(between(0, 250));
      })();
      return ctx;
    },
    async afterRestart(ctx) {
      // An answer that got no reply is sent again, as a client would — unless the run went on without
      // it: the kill came after the answer was recorded and before its reply (a client would see the
      // run no longer waiting, and its answer in the trace).
      if (!ctx.answers.includes(200)) {
        const id = ctx.runs[0].id;
        const run = await until(
          id,
          (r) => r.status === 'awaiting_input' || TERMINAL.includes(r.status),
          30_000,
        );
        if (run.status === 'awaiting_input')
          ctx.answers.push((await call('POST', `/v1/runs/${id}/input`, { input: { name: ctx.tag } })).status);
        else ctx.answers.push(`recorded before the kill (${run.status})`);
      }
    },
    check(ctx, run, events) {
      const p = [];
      if (run.step_results?.use?.name !== ctx.tag) p.push(`use = ${JSON.stringify(run.step_results?.use)}`);
      const n = events.filter((e) => e.event_type === 'InputReceived').length;
      if (n !== 1) p.push(`${n} InputReceived`);
      ctx.note = `answers ${ctx.answers.join(',')}`;
      return p;
    },
  },
  dispatch: {
    async start(tag) {
      const child = {
        steps: [counter(tag, 'c1', 300), counter(tag, 'c2', 300, ['c1']), counter(tag, 'c3', 0, ['c2'])],
      };
      const sub = { steps: [counter(tag, 's1', 300), counter(tag, 's2', 200, ['s1'])] };
      const plan = {
        steps: [
          counter(tag, 'p0', 100),
          { id: 'child', action: 'agent.dispatch', parameters: { plan: child }, dependencies: ['p0'] },
          { id: 'sub', description: 'a sub-plan', action: 'demo.echo', subplan: sub, dependencies: ['p0'] },
          counter(tag, 'p1', 0, ['child', 'sub']),
        ],
      };
      const id = await create({ plan, config: { execution_mode: 'parallel' } });
      return {
        runs: [{ id, expect: 'completed' }],
        keys: ['p0', 'c1', 'c2', 'c3', 's1', 's2', 'p1'].map((k) => `${tag}:${k}`),
        trigger: sleep(between(100, 2500)),
      };
    },
    check(ctx, run) {
      const p = [];
      if (run.step_results?.p1?.value !== 1) p.push(`p1 = ${JSON.stringify(run.step_results?.p1)}`);
      return p;
    },
  },
  retries: {
    async start(tag) {
      const plan = {
        steps: [
          {
            id: 'flaky',
            action: 'demo.flaky',
            parameters: { fail_times: 2, key: `${tag}:flaky` },
            retries: 3,
          },
          {
            id: 'broken',
            action: 'demo.flaky',
            parameters: { fail_times: 99, key: `${tag}:broken`, permanent: true },
            fallback_action: {
              action: 'demo.counter',
              parameters: { key: `${tag}:fallback`, delay_ms: 200 },
            },
          },
          counter(tag, 'after', 0, ['flaky', 'broken']),
        ],
      };
      const id = await create({ plan, config: { execution_mode: 'parallel', retry_delay: 0.7 } });
      return {
        runs: [{ id, expect: 'completed' }],
        keys: [`${tag}:fallback`, `${tag}:after`],
        trigger: sleep(between(100, 2500)),
      };
    },
    check(ctx, run, events) {
      const p = [];
      const returned = events.filter((e) => e.event_type === 'ToolReturned' && e.payload.step_id === 'flaky');
      const ok = returned.filter((e) => e.payload.success);
      if (ok.length !== 1) p.push(`flaky succeeded ${ok.length} times`);
      if (run.step_results?.broken?.value !== 1)
        p.push(`broken (fallback) = ${JSON.stringify(run.step_results?.broken)}`);
      return p;
    },
  },
  retry: {
    async start(tag) {
      const plan = {
        steps: [
          counter(tag, 'a'),
          {
            id: 'once',
            action: 'demo.flaky',
            parameters: { fail_times: 1, key: `${tag}:once`, permanent: true },
            dependencies: ['a'],
          },
          counter(tag, 'b', 300, ['once']),
          counter(tag, 'c', 0, ['b']),
        ],
      };
      const id = await create({ plan, config: { retry_failed_steps: 0 } });
      const ctx = {
        runs: [{ id, expect: 'completed' }],
        keys: ['a', 'b', 'c'].map((k) => `${tag}:${k}`),
        posts: [],
      };
      ctx.trigger = (async () => {
        await until(id, (r) => r.status === 'failed');
        const r = await call('POST', `/v1/runs/${id}/retry`, {}, { retry: false }).catch(() => ({
          status: 0,
        }));
        ctx.posts.push(r.status);
        await sleep(between(0, 400));
      })();
      return ctx;
    },
    async afterRestart(ctx) {
      if (!ctx.posts.includes(200)) {
        const id = ctx.runs[0].id;
        const run = await get(`/v1/runs/${id}`);
        if (run.status === 'failed') ctx.posts.push((await call('POST', `/v1/runs/${id}/retry`, {})).status);
      }
    },
    check(ctx) {
      ctx.note = `retry answers ${ctx.posts.join(',')}`;
      return [];
    },
  },
  cancel: {
    async start(tag) {
      const plan = {
        steps: Array.from({ length: 8 }, (_, i) => counter(tag, `s${i}`, 250, i ? [`s${i - 1}`] : [])),
      };
      const id = await create({ plan });
      const ctx = {
        runs: [{ id, expect: 'cancelled' }],
        keys: plan.steps.map((s) => s.parameters.key),
        posts: [],
        cancelled: true,
      };
      ctx.trigger = (async () => {
        await sleep(between(100, 1200));
        const r = await call('POST', `/v1/runs/${id}/cancel`, {}, { retry: false }).catch(() => ({
          status: 0,
        }));
        ctx.posts.push(r.status);
        await sleep(between(0, 300));
      })();
      return ctx;
    },
    async afterRestart(ctx) {
      if (!ctx.posts.some((s) => s === 200 || s === 409)) {
        const id = ctx.runs[0].id;
        ctx.posts.push((await call('POST', `/v1/runs/${id}/cancel`, {})).status);
      }
    },
    check(ctx, run, events) {
      const p = [];
      const end = events.findIndex((e) => e.event_type === 'RunTerminated');
      const later = events.slice(end + 1).filter((e) => e.event_type === 'ToolInvoked');
      if (later.length) p.push(`${later.length} ToolInvoked after RunTerminated`);
      ctx.note = `cancel answers ${ctx.posts.join(',')}`;
      return p;
    },
  },
  http: {
    async start(tag) {
      const h = (id, deps = []) => ({
        id,
        action: 'http.request',
        parameters: {
          url: `${loopBase}/side/${tag}/${id}?delay=${between(100, 700)}`,
          method: 'POST',
          body: { id },
        },
        dependencies: deps,
      });
      const plan = { steps: [h('h1'), h('h2'), h('h3', ['h1']), h('h4', ['h3', 'h2'])] };
      const id = await create({ plan, config: { execution_mode: 'parallel' } });
      return { runs: [{ id, expect: 'completed' }], keys: [], trigger: sleep(between(50, 2000)) };
    },
    check(ctx, run, events) {
      const p = [];
      const id = ctx.runs[0].id;
      let total = 0;
      for (const step of ['h1', 'h2', 'h3', 'h4']) {
        const ret = events.find(
          (e) => e.event_type === 'ToolReturned' && e.payload.step_id === step && e.payload.success,
        );
        const key = events.find((e) => e.event_type === 'ToolInvoked' && e.payload.step_id === step)?.payload
          .idempotency_key;
        const hits = sideHits.get(key) ?? [];
        total += hits.length;
        if (key !== `${id}:${step}`) p.push(`${step}: idempotency key ${key}`);
        if (hits.length === 0) p.push(`${step}: no request reached the server`);
        const after = ret ? hits.filter((h) => h.at > Date.parse(ret.timestamp) + 5) : [];
        if (after.length) p.push(`${step}: ${after.length} request(s) after its result was recorded`);
      }
      ctx.note = `${total} requests for 4 steps`;
      return p;
    },
  },
  delete: {
    async start(tag) {
      const { id, keys } = await parentWithChildren(tag);
      const ctx = { runs: [], keys, answers: [], deleted: id };
      ctx.trigger = (async () => {
        // A step message a kill lost (wrangler dev's queue is in memory) is carried out by the run
        // itself after 60 s (untaken-attempts.ts), hence the long wait.
        const run = await until(id, (r) => TERMINAL.includes(r.status), 150_000);
        ctx.before = await beforeDeletion(run);
        // Killed right after the answer, or while the deletion is under way (it takes ~50-300 ms).
        ctx.mode = rnd() < 0.5 ? 'after-answer' : 'mid-way';
        const sentAt = Date.now();
        ctx.sent = call('DELETE', `/v1/runs/${id}`, undefined, { retry: false }).then(
          (r) => ctx.answers.push(`${r.status} in ${Date.now() - sentAt} ms`),
          () => ctx.answers.push(0),
        );
        if (ctx.mode === 'after-answer') await ctx.sent;
        await sleep(between(0, ctx.mode === 'after-answer' ? 100 : 200));
      })();
      return ctx;
    },
    async afterRestart(ctx) {
      await ctx.sent;
      const b = ctx.before;
      if (!b) return void (ctx.problems = [`its run never got to the deletion: ${ctx.triggerError?.stack}`]);
      const p = [...b.problems];
      // What a client sees first: not deleted at all (then nothing may be gone), or hidden.
      const first = (await call('GET', `/v1/runs/${ctx.deleted}`)).status;
      if (first === 200) {
        for (const id of b.ids.slice(1))
          if ((await call('GET', `/v1/runs/${id}`)).status !== 200)
            p.push(`the run is readable but its child ${id} is not`);
        const s = storedFor(persist, ctx.deleted, b.plans[ctx.deleted]);
        if (s.index_rows !== 1 || s.kv_keys.length === 0)
          p.push(`the run is readable but has ${JSON.stringify(s)} stored`);
      } else if (first !== 404) p.push(`GET after the restart: ${first}`);
      // Answered 200: gone already. Hidden otherwise: its alarm finishes within a minute, unasked.
      let how = 'deleted before the kill';
      if (!ctx.answers.some((a) => String(a).startsWith('200'))) {
        if (first === 404 && (await goneWithin(b, 75_000))) how = 'finished by itself';
        else {
          if (first === 404)
            p.push(
              `hidden but not finished 75 s after the restart (${JSON.stringify(b.ids.map((id) => storedFor(persist, id, b.plans[id])))})`,
            );
          const again = await call('DELETE', `/v1/runs/${ctx.deleted}`);
          ctx.answers.push(again.status);
          if (again.status !== 200 && again.status !== 404)
            p.push(`second DELETE: ${again.status} ${JSON.stringify(again.body)}`);
          how = 'finished by a second DELETE';
        }
      }
      p.push(...(await checkDeleted(b)));
      ctx.problems = p;
      ctx.note = `${ctx.mode}, answers ${ctx.answers.join(',')}, first GET ${first}, ${how}`;
    },
    verify: (ctx) => ctx.problems,
  },
  retention: {
    // 0.0001 days: an ended run deletes itself 8.64 s after its end. Every run of the server is kept
    // that short, so this scenario gets a server of its own.
    vars: { RUN_RETENTION_DAYS: '0.0001' },
    async start(tag) {
      const { id, keys } = await parentWithChildren(tag);
      const ctx = { runs: [], keys, deleted: id };
      ctx.trigger = (async () => {
        const run = await until(id, (r) => TERMINAL.includes(r.status), 150_000);
        ctx.before = await beforeDeletion(run);
        // Killed around the moment its retention alarm fires.
        const due = Date.parse(run.completed_at) + 8_640;
        ctx.offset = between(-2500, 1500);
        await sleep(Math.max(0, due + ctx.offset - Date.now()));
      })();
      return ctx;
    },
    async afterRestart(ctx) {
      const b = ctx.before;
      if (!b) return void (ctx.problems = [`its run never got to the deletion: ${ctx.triggerError?.stack}`]);
      const p = [...b.problems];
      // No request to the run: only its alarm (and its children's) can delete it.
      const gone = await goneWithin(b, 75_000);
      if (!gone)
        p.push(
          `not deleted 75 s after the restart (${JSON.stringify(b.ids.map((id) => storedFor(persist, id, b.plans[id])))})`,
        );
      p.push(...(await checkDeleted(b)));
      ctx.problems = p;
      ctx.note = `killed ${ctx.offset} ms from the due time`;
    },
    verify: (ctx) => ctx.problems,
  },
  mcp: {
    async start(tag) {
      const m = (id, deps = []) => ({
        id,
        action: 'mcp.chaos.tally',
        parameters: { delay_ms: between(200, 1500) },
        dependencies: deps,
      });
      const plan = { steps: [m('m1'), m('m2'), m('m3', ['m1']), m('m4', ['m2', 'm3'])] };
      const id = await create({ plan, config: { execution_mode: 'parallel' } });
      const ctx = { runs: [{ id, expect: 'completed' }], keys: [] };
      // Killed while a call is with the server.
      ctx.trigger = (async () => {
        for (const end = Date.now() + 20_000; Date.now() < end; await sleep(20))
          if ([...mcpCalls.keys()].some((k) => k.startsWith(`${id}:`))) break;
        await sleep(between(0, 1200));
      })();
      return ctx;
    },
    check(ctx, run, events) {
      const p = [];
      const id = ctx.runs[0].id;
      const seen = [];
      for (const step of ['m1', 'm2', 'm3', 'm4']) {
        const ok = events.filter(
          (e) => e.event_type === 'ToolReturned' && e.payload.step_id === step && e.payload.success,
        );
        if (ok.length !== 1) p.push(`${step}: ${ok.length} successful results`);
        const key = events.find((e) => e.event_type === 'ToolInvoked' && e.payload.step_id === step)?.payload
          .idempotency_key;
        if (key !== `${id}:${step}`) p.push(`${step}: idempotency key ${key}`);
        const calls = mcpCalls.get(key) ?? [];
        if (calls.length === 0) p.push(`${step}: no call reached the server`);
        let result;
        try {
          result = JSON.parse(run.step_results?.[step]?.text ?? 'null');
        } catch {
          result = null;
        }
        if (result?.key !== key || !calls.some((c) => c.n === result.call && c.answeredAt))
          p.push(`${step}: result ${JSON.stringify(run.step_results?.[step])} is no answer the server gave`);
        const after = ok[0] ? calls.filter((c) => c.at > Date.parse(ok[0].timestamp) + 5) : [];
        if (after.length) p.push(`${step}: ${after.length} call(s) after its result was recorded`);
        seen.push(`${step} ${calls.map((c) => `#${c.attempt}${c.answeredAt ? '' : '(cut)'}`).join('')}`);
      }
      ctx.note = `server saw ${seen.join(', ')}`;
      return p;
    },
  },
  lapse: {
    async start(tag) {
      const timeout = between(1500, 4000);
      const plan = {
        steps: [
          counter(tag, 'a'),
          {
            id: 'ask',
            action: 'human.input',
            parameters: { prompt: 'anyone there?' },
            timeout_ms: timeout,
            retries: 0,
            dependencies: ['a'],
          },
          counter(tag, 'b', 0, ['ask']),
        ],
      };
      const id = await create({ plan });
      const ctx = { runs: [{ id, expect: 'failed' }], keys: [`${tag}:a`], never: [`${tag}:b`] };
      // Killed around the question's deadline (its ToolInvoked + timeout_ms).
      ctx.trigger = (async () => {
        await until(id, (r) => r.status === 'awaiting_input' || TERMINAL.includes(r.status));
        const { events } = await get(`/v1/runs/${id}/events?limit=1000`);
        const asked = events.find((e) => e.event_type === 'ToolInvoked' && e.payload.step_id === 'ask');
        ctx.offset = between(-1000, 600);
        if (asked) await sleep(Math.max(0, Date.parse(asked.timestamp) + timeout + ctx.offset - Date.now()));
      })();
      return ctx;
    },
    check(ctx, run, events) {
      const p = [];
      if (run.step_statuses?.ask !== 'failed') p.push(`ask is ${run.step_statuses?.ask}`);
      if (run.step_statuses?.b === 'completed') p.push('b ran after an unanswered question');
      const n = events.filter((e) => e.event_type === 'InputReceived').length;
      if (n !== 0) p.push(`${n} InputReceived`);
      const asks = events.filter((e) => e.event_type === 'ToolInvoked' && e.payload.step_id === 'ask').length;
      if (asks !== 1) p.push(`asked ${asks} times with retries: 0`);
      const why = events.find((e) => e.event_type === 'ToolReturned' && e.payload.step_id === 'ask')?.payload
        .error;
      if (why?.code !== 'timeout') p.push(`ask ended ${JSON.stringify(why)}, not by its timeout`);
      ctx.note = `killed ${ctx.offset} ms from the deadline; ${run.error?.code}: ${why?.message}`;
      return p;
    },
  },
};

// ---------------------------------------------------------------------------------------------------
// Checks shared by every run.

async function commonChecks(runId, expect) {
  const p = [];
  // Untouched: the end is read from the D1 index only.
  let row;
  for (const end = Date.now() + 60_000; ;) {
    const { runs } = await get(`/v1/runs?limit=100`);
    row = runs.find((r) => r.run_id === runId);
    if (row && TERMINAL.includes(row.status)) break;
    if (Date.now() > end) break;
    await sleep(300);
  }
  const run = await get(`/v1/runs/${runId}`);
  if (run.status !== expect)
    p.push(`status ${run.status}, expected ${expect} (${JSON.stringify(run.error ?? null)})`);
  if (!row || row.status !== run.status) p.push(`D1 index says ${row?.status}, the run ${run.status}`);
  const { events } = await get(`/v1/runs/${runId}/events?limit=1000`);
  events.forEach((e, i) => {
    if (e.seq !== i + 1) p.push(`event ${i} has seq ${e.seq}`);
  });
  const dup = (type, keyOf) => {
    const seen = new Map();
    for (const e of events.filter((x) => x.event_type === type)) {
      const k = keyOf(e);
      if (seen.has(k)) p.push(`two ${type} for ${k} (seq ${seen.get(k)} and ${e.seq})`);
      seen.set(k, e.seq);
    }
  };
  const version = (e) => e.references?.plan_version ?? 0;
  dup('PlanAuthored', () => 'the run');
  dup('PlanUpdated', (e) => `v${e.payload.plan.version}`);
  dup('ToolReturned', (e) => `v${version(e)} ${e.payload.step_id}#${e.payload.attempt}`);
  dup('StepRetried', (e) => `v${version(e)} ${e.payload.step_id}#${e.payload.attempt}`);
  dup('ApprovalGranted', () => 'the run');
  dup('ApprovalRequested', (e) => `v${e.payload.plan_version}`);
  dup('RunStarted', () => `after the ${events.filter((x) => x.event_type === 'RunResumed').length}th resume`);
  const starts = 1 + events.filter((e) => e.event_type === 'RunResumed').length;
  const ends = events.filter((e) => e.event_type === 'RunTerminated').length;
  if (ends > starts) p.push(`${ends} RunTerminated for ${starts} start(s)`);
  const last = events.at(-1)?.seq;
  const state = await get(`/v1/runs/${runId}/state?at=${last}`);
  for (const f of ['status', 'step_statuses', 'step_results', 'plan_version'])
    if (JSON.stringify(state[f]) !== JSON.stringify(run[f]))
      p.push(
        `state?at=${last}.${f} ${JSON.stringify(state[f])?.slice(0, 200)} ≠ run ${JSON.stringify(run[f])?.slice(0, 200)}`,
      );
  return { problems: p, run, events };
}

// ---------------------------------------------------------------------------------------------------

const names = Object.keys(SCENARIOS).filter((n) => !ONLY || ONLY.includes(n));
// Scenarios that need Worker vars of their own (RUN_RETENTION_DAYS) get a server of their own: one
// group of rounds per set of vars, each on a fresh state.
const groups = new Map();
for (const n of names) {
  const vars = JSON.stringify(SCENARIOS[n].vars ?? {});
  groups.set(vars, [...(groups.get(vars) ?? []), n]);
}
let persist;
const port = Number(arg('port') ?? (await freePort()));
const baseArgs = [
  '--inspector-port',
  String(port + 1),
  '--log-level',
  'error',
  '--var',
  'HTTP_ALLOWLIST:127.0.0.1',
  '--var',
  `OPENAI_BASE_URL:${loopBase}/v1`,
  '--var',
  'OPENAI_API_KEY:sk-chaos',
  '--var',
  'PLANNER_MODEL:scripted',
  '--var',
  'WEBHOOK_SECRET:whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=',
  '--var',
  `MCP_SERVERS:${MCP_SERVERS}`,
];
const cleanup = () => {
  server?.stop();
  server = null;
  if (persist) rmSync(persist, { recursive: true, force: true });
};
process.on('exit', cleanup);
const tally = Object.fromEntries(names.map((n) => [n, { trials: 0, focus: 0, bad: 0 }]));
const failures = [];
console.log(
  `chaos: ${ROUNDS} rounds of ${[...groups.values()].map((g) => g.join(', ')).join(' / ')}; seed ${seed}; port ${port}`,
);
try {
  for (const [varsJson, group] of groups) {
    const extraArgs = [
      ...baseArgs,
      ...Object.entries(JSON.parse(varsJson)).flatMap(([k, v]) => ['--var', `${k}:${v}`]),
    ];
    persist = migratedState('edgeplan-chaos');
    if (varsJson !== '{}') console.log(`(${group.join(', ')}: a server of their own, with ${varsJson})`);
    await rounds(group, extraArgs);
    cleanup();
  }
} finally {
  cleanup();
  loop.close();
  mcpHttp.close();
}

async function rounds(names, extraArgs) {
  server = await startDevServer({ name: 'edgeplan-chaos', persist, port, extraArgs });
  for (let round = 0; round < ROUNDS; round++) {
    const focus = names[round % names.length];
    const ctxs = {};
    // Every scenario starts at a random offset; the focus one picks the kill moment.
    await Promise.all(
      names.map(async (n) => {
        if (n !== focus) await sleep(between(0, 1500));
        const tag = `chaos-${n}-${round}x${Date.now().toString(36)}`;
        const ctx = await SCENARIOS[n].start(tag);
        ctx.tag = tag;
        ctxs[n] = ctx;
      }),
    );
    await ctxs[focus].trigger;
    const killedAt = Date.now();
    await server.kill();
    server = await startDevServer({ name: 'edgeplan-chaos', persist, port, extraArgs });
    const restartMs = server.upAt - killedAt;
    // Each scenario's pre-kill action finishes (they retry while the server is down), then its
    // after-restart one, each at its own pace: one scenario's long wait (a run whose queued step the
    // kill lost goes on after 60 s) must not hold another's client back (a cancel sent a minute late
    // finds its run completed).
    await Promise.all(
      names.map(async (n) => {
        await ctxs[n].trigger?.catch((err) => (ctxs[n].triggerError = err));
        await SCENARIOS[n].afterRestart?.(ctxs[n]);
      }),
    );
    const lines = [];
    const keys = [];
    const maybeOnce = [];
    const never = [];
    for (const n of names) {
      const ctx = ctxs[n];
      const report1 = (id, status, problems, run, events) => {
        tally[n].trials++;
        if (n === focus) tally[n].focus++;
        if (problems.length) {
          tally[n].bad++;
          failures.push({ round, scenario: n, run_id: id, problems });
        }
        if (problems.length || KEEP) {
          mkdirSync(report, { recursive: true });
          writeFileSync(
            join(report, `${n}-${id}.json`),
            JSON.stringify({ problems, run, events, ctx }, null, 2),
          );
        }
        lines.push(
          `  ${n === focus ? '*' : ' '}${n.padEnd(9)} ${id} ${status}${ctx.note ? ` (${ctx.note})` : ''}` +
            (problems.length ? `\n      PROBLEMS: ${problems.join('\n                ')}` : ''),
        );
      };
      for (const { id, expect } of ctx.runs) {
        const { problems, run, events } = await commonChecks(id, expect);
        problems.push(...SCENARIOS[n].check(ctx, run, events));
        report1(id, run.status, problems, run, events);
      }
      // A scenario whose run is gone (deleted) checks what is left of it instead.
      if (SCENARIOS[n].verify) report1(ctx.deleted, 'deleted', SCENARIOS[n].verify(ctx));
      (ctx.cancelled ? maybeOnce : keys).push(...ctx.keys);
      never.push(...(ctx.never ?? []));
    }
    // The witness: every key once more under new idempotency keys; one applied twice reads 3, one
    // that must never have been applied reads 1.
    const all = [...keys, ...maybeOnce, ...never];
    const witness = await create({
      plan: { steps: all.map((key, i) => ({ id: `w${i}`, action: 'demo.counter', parameters: { key } })) },
      config: { execution_mode: 'parallel', max_parallel: 20, max_steps: 1000 },
    });
    const w = await until(witness, (r) => TERMINAL.includes(r.status), 60_000);
    const bad = all
      .map((key, i) => [key, w.step_results?.[`w${i}`]?.value])
      .filter(([key, v]) =>
        keys.includes(key) ? v !== 2 : never.includes(key) ? v !== 1 : !(v >= 1 && v <= 2),
      );
    for (const [key, v] of bad) {
      const n = key.split('-')[1];
      failures.push({ round, scenario: n, problems: [`counter ${key} reads ${v} in the witness`] });
      tally[n].bad++;
    }
    console.log(
      `round ${round}: focus ${focus}, killed ${Date.now() - killedAt} ms ago, restart ${(restartMs / 1000).toFixed(1)} s` +
        `; witness ${bad.length ? `BAD ${bad.map(([k, v]) => `${k}=${v}`).join(' ')}` : `ok (${all.length} keys)`}`,
    );
    console.log(lines.join('\n'));
  }
}
console.log('\nsummary (trials = runs checked after a kill; focus = rounds whose kill this scenario timed)');
for (const n of names)
  console.log(`  ${n.padEnd(9)} trials ${tally[n].trials}, focus ${tally[n].focus}, bad ${tally[n].bad}`);
if (failures.length) {
  console.log(`\n${failures.length} failing check(s); events under ${report}`);
  process.exitCode = 1;
}
process.exit();
