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
//   each round restarts wrangler dev (~10–15 s on 2 busy cores); 9 rounds take about 5 minutes.
import { createServer } from 'node:http';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, migratedState, startDevServer } from './dev-server.mjs';

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
      // An answer lost with the server (no reply) is sent again, as a client would.
      if (!ctx.answers.includes(200)) {
        const id = ctx.runs[0].id;
        await until(id, (r) => r.status === 'awaiting_input', 30_000);
        ctx.answers.push((await call('POST', `/v1/runs/${id}/input`, { input: { name: ctx.tag } })).status);
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
const persist = migratedState('edgeplan-chaos');
const port = Number(arg('port') ?? (await freePort()));
const extraArgs = [
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
];
const cleanup = () => {
  server?.stop();
  rmSync(persist, { recursive: true, force: true });
};
process.on('exit', cleanup);
const tally = Object.fromEntries(names.map((n) => [n, { trials: 0, focus: 0, bad: 0 }]));
const failures = [];
console.log(`chaos: ${ROUNDS} rounds of ${names.join(', ')}; seed ${seed}; port ${port}`);
try {
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
    // Let every scenario's pre-kill action finish (they retry while the server is down).
    await Promise.all(Object.values(ctxs).map((c) => c.trigger?.catch(() => {})));
    await Promise.all(names.map((n) => SCENARIOS[n].afterRestart?.(ctxs[n])));
    const lines = [];
    const keys = [];
    const maybeOnce = [];
    for (const n of names) {
      const ctx = ctxs[n];
      for (const { id, expect } of ctx.runs) {
        const { problems, run, events } = await commonChecks(id, expect);
        problems.push(...SCENARIOS[n].check(ctx, run, events));
        tally[n].trials++;
        if (n === focus) tally[n].focus++;
        if (problems.length) {
          tally[n].bad++;
          failures.push({ round, scenario: n, run_id: id, problems });
        }
        if (problems.length || KEEP) {
          mkdirSync(report, { recursive: true });
          writeFileSync(join(report, `${n}-${id}.json`), JSON.stringify({ problems, run, events }, null, 2));
        }
        lines.push(
          `  ${n === focus ? '*' : ' '}${n.padEnd(9)} ${id} ${run.status}${ctx.note ? ` (${ctx.note})` : ''}` +
            (problems.length ? `\n      PROBLEMS: ${problems.join('\n                ')}` : ''),
        );
      }
      (ctx.cancelled ? maybeOnce : keys).push(...ctx.keys);
    }
    // The witness: every key once more under new idempotency keys; one applied twice reads 3.
    const all = [...keys, ...maybeOnce];
    const witness = await create({
      plan: { steps: all.map((key, i) => ({ id: `w${i}`, action: 'demo.counter', parameters: { key } })) },
      config: { execution_mode: 'parallel', max_parallel: 20, max_steps: 1000 },
    });
    const w = await until(witness, (r) => TERMINAL.includes(r.status), 60_000);
    const bad = all
      .map((key, i) => [key, w.step_results?.[`w${i}`]?.value])
      .filter(([key, v]) => (keys.includes(key) ? v !== 2 : !(v >= 1 && v <= 2)));
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
} finally {
  cleanup();
  loop.close();
}
console.log('\nsummary (trials = runs checked after a kill; focus = rounds whose kill this scenario timed)');
for (const n of names)
  console.log(`  ${n.padEnd(9)} trials ${tally[n].trials}, focus ${tally[n].focus}, bad ${tally[n].bad}`);
if (failures.length) {
  console.log(`\n${failures.length} failing check(s); events under ${report}`);
  process.exitCode = 1;
}
process.exit();
