/**
 * The paths that landed after crash-restart.test.ts, across a real crash: `wrangler dev`'s whole
 * process group is SIGKILLed (one kill, one server) while (1) a goal's planner waits for the model's
 * repair of a plan with a finding, (2) a `human.input` step's question is open and a WebSocket client
 * follows its run, (3) just after an answer was accepted, (4) a plan approved through the API has its
 * webhook still with the receiver, (5) just after a run was cancelled and deleted, and (6) a revision's
 * webhook (approval.revisions: "ask") is with the receiver — then started again on the same state and
 * port. After the restart: the plan is planned once with the model's tokens counted as its trace lists
 * them; the question asked before the crash is the one to answer and the socket, resumed after its last
 * seq, gets every event once; the answer is not lost; no webhook asks about the decided plan; the
 * deleted run stays gone; the revision's webhook is sent again with its link, the v1 link superseded.
 */
import { rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedLlm } from './scripted-llm-server';
// @ts-expect-error -- a plain .mjs script without declarations
import { migratedState, startDevServer } from '../../scripts/dev-server.mjs';
import { gapFree, serverApi } from './server-api';
import { inspectorArgs, pinnedPort } from './pinned-port';

type Dev = { base: string; port: number; persist: string; stop(): void; kill(): Promise<void> };
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** This file's port (and its inspector's, the one after it) when EDGEPLAN_E2E_PORT pins it; else a free one. */
const PORT = pinnedPort();
const TAG = `recent-${Date.now().toString(36)}`;
/** The revision's calls. */
const REVISED = `revised-${Math.random().toString(36).slice(2)}`;
/** The judge's calls: a tag of their own (TAG is not in it, nor it in TAG). */
const JUDGED = `judged-${Math.random().toString(36).slice(2)}`;

const llm = await startScriptedLlm();
let releaseRepair = () => undefined as void;
const repairHeld = new Promise<void>((r) => (releaseRepair = r));

/** The approval-webhook receiver: every delivery's run, kept; those before the kill never answered. */
const deliveries: { run_id: string; plan_version: number; approval_url: string }[] = [];
const deliveredTo = (id: string) => deliveries.filter((d) => d.run_id === id);
let answerHooks = false;
const hooks = createServer((req: IncomingMessage, res: ServerResponse) => {
  let text = '';
  req.on('data', (c: Buffer) => (text += c.toString()));
  req.on('end', () => {
    const { run_id, plan_version, approval_url } = JSON.parse(text) as Json;
    deliveries.push({ run_id, plan_version, approval_url });
    if (answerHooks) res.end('ok');
  });
});
await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`;

const ARGS = [
  '--var',
  'HTTP_ALLOWLIST:127.0.0.1',
  '--var',
  'WEBHOOK_SECRET:whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=',
  ...inspectorArgs(PORT),
  '--log-level',
  'error',
  '--var',
  `OPENAI_BASE_URL:${llm.url}`,
  '--var',
  'OPENAI_API_KEY:sk-scripted',
  '--var',
  'PLANNER_MODEL:scripted-1',
];

let server: Dev;
const persist = migratedState('edgeplan-crash-recent') as string;
const { call, get } = serverApi(() => server.base);

async function create(body: unknown): Promise<string> {
  const r = await call('POST', '/v1/runs', body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.run_id as string;
}
/** Polls until `done` holds (a restart on a busy machine is slow: generous). */
async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  for (const end = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 100))) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: not in time (last: ${JSON.stringify(v).slice(0, 500)})`);
  }
}
const statusIs = (id: string, status: string) =>
  until(
    `run ${id} ${status}`,
    () => get(`/v1/runs/${id}`),
    (r) => r.status === status,
  );
const eventsOf = async (id: string) => (await get(`/v1/runs/${id}/events?limit=1000`)).events as Json[];
const ofType = (events: Json[], type: string) => events.filter((e) => e.event_type === type);

const askThenUse = {
  steps: [
    { id: 'ask', action: 'human.input', parameters: { prompt: 'Which city?' } },
    { id: 'use', action: 'demo.echo', parameters: { city: '{{ steps.ask.output }}' }, dependencies: ['ask'] },
  ],
};
const step = (id: string, action: string) => ({
  id,
  description: id,
  action,
  parameters: { id },
  dependencies: [],
});
const badPlan = JSON.stringify({ steps: [step('a', 'demo.no_such_tool')] });
const goodPlan = JSON.stringify({ steps: [step('a', 'demo.echo')] });

const runs = { planned: '', open: '', answered: '', decided: '', deleted: '', revised: '' };

/** The seqs a WebSocket client of run `id` was sent after `after`, as they came; `closed` once it is. */
function follow(id: string, after: number) {
  const seqs: number[] = [];
  const ws = new WebSocket(`${server.base.replace('http', 'ws')}/v1/runs/${id}/ws?after=${after}`);
  ws.onmessage = (m) => {
    if (m.data !== 'pong') seqs.push((JSON.parse(String(m.data)) as Json).seq as number);
  };
  const closed = new Promise<void>((r) => ws.addEventListener('close', () => r()));
  const opened = new Promise<void>((r, reject) => {
    ws.addEventListener('open', () => r());
    ws.addEventListener('error', () => reject(new Error(`the socket of ${id} did not open`)));
  });
  return { seqs, closed, opened, close: () => ws.close() };
}
let before: ReturnType<typeof follow>;
let asked = 0;

beforeAll(async () => {
  server = (await startDevServer({
    name: 'edgeplan-crash-recent',
    persist,
    port: PORT,
    extraArgs: ARGS,
  })) as Dev;
  // (1) The model's first plan names no tool there is; its repair is held until the kill. Asked
  // again, the same: a finding, then the repair.
  llm.script(TAG, [badPlan, { pieces: [goodPlan], held: repairHeld }, badPlan, goodPlan]);
  runs.planned = await create({
    goal: `echo once (${TAG})`,
    config: { require_plan_approval: true },
  });
  // (4) A plan approved through the API while its webhook is with the receiver; its step's judge is
  // with the model at the kill (so the object has side work to take up again after the restart).
  llm.script(JUDGED, [{ pieces: ['{"ok": true, "reason": "held"}'], held: repairHeld }, '{"ok": true}']);
  runs.decided = await create({
    plan: {
      steps: [{ id: 'go', action: 'demo.echo', parameters: { go: true }, expected_output: `${JUDGED}: go` }],
    },
    config: {
      require_plan_approval: true,
      approval: { webhook_url: hookUrl, timeout_s: 600, default_action: 'reject' },
    },
  });
  await until(
    'the webhook with its receiver',
    () => Promise.resolve(deliveredTo(runs.decided).length),
    (n) => n === 1,
  );
  const decided = await call('POST', `/v1/runs/${runs.decided}/approval`, { decision: 'approve' });
  expect(decided.status, JSON.stringify(decided.body)).toBe(200);
  await until(
    'the judge asked',
    () => Promise.resolve(llm.calls.filter((c) => c.tag === JUDGED).length),
    (n) => n === 1,
  );
  // (6) v1 approved through the API, its step fails, the model's v2 awaits approval (revisions:
  // "ask"): v2's webhook is with the receiver at the kill.
  const flaky = { fail_times: 99, key: `${REVISED}-parse`, permanent: true };
  llm.script(REVISED, [JSON.stringify({ steps: [step('fetch', 'demo.echo'), step('parse2', 'demo.echo')] })]);
  runs.revised = await create({
    plan: {
      goal: `fetch and parse (${REVISED})`,
      steps: [
        { id: 'fetch', action: 'demo.echo', parameters: { id: 'fetch' } },
        { id: 'parse', action: 'demo.flaky', parameters: flaky, dependencies: ['fetch'] },
      ],
    },
    config: {
      execution_mode: 'sequential',
      on_step_failure: 'replan',
      require_plan_approval: true,
      approval: { webhook_url: hookUrl, revisions: 'ask', timeout_s: 600, default_action: 'reject' },
    },
  });
  await statusIs(runs.revised, 'awaiting_approval');
  const v1 = await call('POST', `/v1/runs/${runs.revised}/approval`, { decision: 'approve' });
  expect(v1.status, JSON.stringify(v1.body)).toBe(200);
  await until(
    "v2's webhook with the receiver",
    () => Promise.resolve(deliveredTo(runs.revised).map((d) => d.plan_version)),
    (v) => v.includes(2),
  );
  // (5) A run cancelled and deleted just before the kill.
  runs.deleted = await create({ plan: askThenUse });
  await statusIs(runs.deleted, 'awaiting_input');
  expect((await call('POST', `/v1/runs/${runs.deleted}/cancel`, {})).status).toBe(200);
  // (2) A question open at the kill.
  runs.open = await create({ plan: askThenUse });
  // (3) A question answered just before the kill.
  runs.answered = await create({ plan: askThenUse });
  await statusIs(runs.open, 'awaiting_input');
  await statusIs(runs.answered, 'awaiting_input');
  asked = ofType(await eventsOf(runs.open), 'InputRequested').at(-1)!.seq as number;
  const answered = ofType(await eventsOf(runs.answered), 'InputRequested').at(-1)!.seq as number;
  await until(
    'the repair asked',
    () => Promise.resolve(llm.calls.filter((c) => c.tag === TAG).length),
    (n) => n === 2,
  );
  // A client following the open question's run across the crash.
  before = follow(runs.open, 0);
  await before.opened;
  await until(
    'the socket sent the backlog',
    () => Promise.resolve(before.seqs.length),
    (n) => n === asked,
  );
  const gone = await call('DELETE', `/v1/runs/${runs.deleted}`);
  expect(gone.status, JSON.stringify(gone.body)).toBe(200);
  const r = await call('POST', `/v1/runs/${runs.answered}/input`, {
    input: 'Oslo',
    step_id: 'ask',
    question_seq: answered,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  await server.kill();
  // Answered now, to a server that is gone.
  releaseRepair();
  answerHooks = true;
  server = (await startDevServer({
    name: 'edgeplan-crash-recent',
    persist,
    port: server.port,
    extraArgs: ARGS,
  })) as Dev;
}, 180_000);

afterAll(async () => {
  server?.stop();
  rmSync(persist, { recursive: true, force: true });
  await llm.close();
  hooks.closeAllConnections();
  hooks.close();
});

describe('the newer paths across a SIGKILL of wrangler dev and a restart on the same state', () => {
  it('plans a goal whose repair the crash cut once, counting the tokens its trace lists', async () => {
    const run = await statusIs(runs.planned, 'awaiting_approval');
    const events = await eventsOf(runs.planned);
    gapFree(events);
    expect(ofType(events, 'PlanAuthored')).toHaveLength(1);
    expect((await get(`/v1/runs/${runs.planned}/plans`)).versions).toHaveLength(1);
    const trace = await get(`/v1/runs/${runs.planned}/planning`);
    const attempts = trace.attempts as Json[];
    // The lost issue's answer (its repair died with the server), then the new issue's answer and repair.
    expect(attempts.map((a) => [a.retry, a.outcome])).toEqual([
      [0, 'invalid'],
      [0, 'invalid'],
      [1, 'ok'],
    ]);
    expect(llm.calls.filter((c) => c.tag === TAG)).toHaveLength(4);
    const prompt = attempts.reduce((n, a) => n + (a.prompt_tokens as number), 0);
    const completion = attempts.reduce((n, a) => n + (a.completion_tokens as number), 0);
    expect(run.token_usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: completion });
    const approved = await call('POST', `/v1/runs/${runs.planned}/approval`, { decision: 'approve' });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const done = await statusIs(runs.planned, 'completed');
    expect(done.step_results).toEqual({ a: { id: 'a' } });
  });

  it('takes the answer to the question asked before the crash, which is asked once', async () => {
    await before.closed;
    const again = follow(runs.open, before.seqs.at(-1)!);
    await again.opened;
    const r = await call('POST', `/v1/runs/${runs.open}/input`, {
      input: 'Bergen',
      step_id: 'ask',
      question_seq: asked,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const run = await statusIs(runs.open, 'completed');
    expect(run.step_results.use).toEqual({ city: 'Bergen' });
    const events = await eventsOf(runs.open);
    gapFree(events);
    expect(ofType(events, 'InputRequested')).toHaveLength(1);
    expect(ofType(events, 'InputReceived')).toHaveLength(1);
    // The client that reconnected after the last seq it got was sent every event once, in order.
    await until(
      'the socket sent the run to its end',
      () => Promise.resolve(again.seqs.length),
      (n) => before.seqs.length + n >= events.length,
    );
    again.close();
    expect([...before.seqs, ...again.seqs]).toEqual(events.map((e) => e.seq));
  });

  it('keeps a run deleted just before the crash deleted', async () => {
    expect((await call('GET', `/v1/runs/${runs.deleted}`)).status).toBe(404);
    expect((await call('GET', `/v1/runs/${runs.deleted}/events`)).status).toBe(404);
    expect((await call('GET', `/v1/runs/${runs.deleted}/plans`)).status).toBe(404);
    const listed = (await get('/v1/runs?limit=100')).runs as Json[];
    expect(listed.map((r) => r.run_id)).not.toContain(runs.deleted);
    expect(listed.map((r) => r.run_id)).toContain(runs.open);
  });

  it('keeps an answer accepted just before the crash, and runs on with it', async () => {
    const run = await statusIs(runs.answered, 'completed');
    expect(run.step_results.use).toEqual({ city: 'Oslo' });
    const events = await eventsOf(runs.answered);
    gapFree(events);
    expect(ofType(events, 'InputRequested')).toHaveLength(1);
    expect(ofType(events, 'InputReceived')).toHaveLength(1);
  });

  it('sends no webhook for a plan approved before the crash, and runs it once', async () => {
    const run = await statusIs(runs.decided, 'completed');
    expect(run.step_results.go).toEqual({ go: true });
    expect(llm.calls.filter((c) => c.tag === JUDGED)).toHaveLength(2);
    // The delivery lost with the server asked about a plan already decided: not sent again.
    expect(deliveredTo(runs.decided)).toHaveLength(1);
    const events = await eventsOf(runs.decided);
    gapFree(events);
    expect(ofType(events, 'ApprovalGranted')).toHaveLength(1);
    expect(ofType(events, 'ToolReturned')).toHaveLength(1);
  });

  it("sends a revision's webhook cut short again with its link, which alone decides it", async () => {
    const sent = await until(
      "v2's webhook sent again",
      () => Promise.resolve(deliveredTo(runs.revised)),
      (d) => d.filter((x) => x.plan_version === 2).length >= 2,
    );
    const [v1, v2, again] = sent;
    expect(sent.map((d) => d.plan_version)).toEqual([1, 2, 2]);
    expect(again!.approval_url).toBe(v2!.approval_url);
    const decide = (d: { approval_url: string }) => {
      const link = new URL(d.approval_url);
      return call('POST', `${link.pathname}${link.search}`, { decision: 'approve' });
    };
    const old = await decide(v1!);
    expect(old.status).toBe(410);
    expect(old.body.error.code).toBe('approval_link_superseded');
    expect((await decide(v2!)).status).toBe(200);
    const run = await statusIs(runs.revised, 'completed');
    expect(Object.keys(run.step_results as Json).sort()).toEqual(['fetch', 'parse2']);
    const events = await eventsOf(runs.revised);
    gapFree(events);
    // v1 through the API, v2 from its link: each once.
    expect(ofType(events, 'ApprovalGranted').map((e) => e.payload.approver_via)).toEqual([
      'anonymous',
      'link',
    ]);
    expect((await get(`/v1/runs/${runs.revised}/plans`)).versions).toHaveLength(2);
  });
});
