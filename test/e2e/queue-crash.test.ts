/**
 * The parallel (queue) path across real crashes: `wrangler dev`'s whole process group is SIGKILLed and
 * started again on the same state (--persist-to) and port, twice.
 *
 * First crash — deferred attempts on the queue: a parent's `agent.dispatch` step, its sub-plan step and
 * its `human.input` step are begun by a consumer (ToolInvoked) and the process is stopped the moment the
 * run's WebSocket says so, as a rule before the consumer starts a child run or records the question. After the
 * restart each comes back by its lease: exactly one child per step (parent fields right), one question,
 * and the run completes.
 *
 * Second crash — an ordinary tool mid-attempt and messages in the local queue: a consumer is killed
 * while its `http.request` (to a loopback server here, which records every request's Idempotency-Key)
 * and its `demo.counter` (effect applied, result not reported) run — their messages delivered and
 * unacked — while another run's message was sent and not yet delivered (`wrangler dev`'s local queue
 * hands a consumer one batch at a time, so it waits behind the running one). The local queue keeps
 * neither across the restart; leases and the object's alarm finish both runs, each effect applied
 * once. Before that crash, a batch holding messages of a cancelled run and a deleted run beside a live
 * one: the ended runs' tools never run, the live one's does, and nothing is brought back by the restart.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childRunId } from '../../src/engine/child-run';
// @ts-expect-error -- a plain .mjs script without declarations
import { migratedState, startDevServer } from '../../scripts/dev-server.mjs';
import { inspectorArgs, pinnedPort } from './pinned-port';
import { serverApi } from './server-api';

type Dev = { base: string; port: number; pid: number; stop(): void; kill(): Promise<void> };
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** This file's port (and its inspector's, the one after it) when EDGEPLAN_E2E_PORT pins it; else a free one. */
const PORT = pinnedPort();
const TAG = `qcrash-${Date.now().toString(36)}`;
const TERMINAL = ['completed', 'failed', 'aborted', 'cancelled'];

// ---- the loopback server every http.request step calls (outlives the kills) --------------------

/** Every request, by the tag in its path; a request whose tag is held waits until released. */
const hits: { tag: string; key: string | undefined; answered: boolean }[] = [];
const hitsOf = (tag: string) => hits.filter((h) => h.tag === tag);
const held = new Map<string, () => void>();
const holds = new Map<string, Promise<void>>();
function hold(tag: string): void {
  holds.set(tag, new Promise<void>((r) => held.set(tag, r)));
}
const release = (tag: string) => held.get(tag)?.();
const sink = createServer((req: IncomingMessage, res: ServerResponse) => {
  req.resume();
  req.on('end', () => {
    const tag = (req.url ?? '').split('/').pop() ?? '';
    const hit = { tag, key: req.headers['idempotency-key'] as string | undefined, answered: false };
    hits.push(hit);
    // Only the first request of a held tag waits; a repeat is answered at once.
    const wait = hitsOf(tag).length === 1 ? holds.get(tag) : undefined;
    void (wait ?? Promise.resolve()).then(() => {
      hit.answered = true;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ tag, n: hitsOf(tag).indexOf(hit) + 1 }));
    });
  });
});
await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
const sinkUrl = (tag: string) => `http://127.0.0.1:${(sink.address() as AddressInfo).port}/hit/${tag}`;
const post = (id: string, tag: string, extra: Json = {}) => ({
  id,
  action: 'http.request',
  parameters: { url: sinkUrl(tag), method: 'POST', body: { tag } },
  ...extra,
});
const counter = (id: string, key: string, extra: Json = {}) => ({
  id,
  action: 'demo.counter',
  parameters: { key },
  ...extra,
});

// ---- the API ------------------------------------------------------------------------------------

const ARGS = [...inspectorArgs(PORT), '--log-level', 'error', '--var', 'HTTP_ALLOWLIST:127.0.0.1'];
const persist = migratedState('edgeplan-queue-crash') as string;
/** The server's port: the first start's (a free one, unpinned), kept for the starts after a kill. */
let port = PORT;
const start = async () => {
  const dev = (await startDevServer({ name: 'edgeplan-queue-crash', persist, port, extraArgs: ARGS })) as Dev;
  port = dev.port;
  return dev;
};
let server: Dev;

const { call, get } = serverApi(() => server.base);
/** A parallel run; its steps go to the queue unless their tool runs in the object (demo.echo, demo.sleep). */
async function create(steps: Json[], config: Json = {}): Promise<string> {
  const r = await call('POST', '/v1/runs', {
    plan: { goal: TAG, steps },
    config: { execution_mode: 'parallel', max_parallel: 10, ...config },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.run_id as string;
}
/** Polls until `done` holds, for up to `ms` (recovery waits for leases and queue windows: generous). */
async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, ms = 150_000) {
  for (const end = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 200))) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > end)
      throw new Error(`${what}: not within ${ms} ms (last: ${JSON.stringify(v).slice(0, 600)})`);
  }
}
const ended = (id: string) =>
  until(
    `run ${id} ended`,
    () => get(`/v1/runs/${id}`),
    (r) => TERMINAL.includes(r.status as string),
  );
const eventsOf = async (id: string) => (await get(`/v1/runs/${id}/events?limit=1000`)).events as Json[];
const per = (events: Json[], type: string) =>
  events.filter((e) => e.event_type === type).map((e) => `${e.payload.step_id}#${e.payload.attempt}`);
/** Gap-free `seq` from 1: the trace lost nothing and recorded nothing twice under one number. */
const gapFree = (events: Json[]) => expect(events.map((e) => e.seq)).toEqual(events.map((_e, i) => i + 1));

/** SIGKILL now; the loopback server's held requests are answered after, to no one. */
async function crash(): Promise<void> {
  await server.kill();
  for (const tag of held.keys()) release(tag);
  server = await start();
}

beforeAll(async () => {
  server = await start();
}, 90_000);

afterAll(() => {
  server?.stop();
  rmSync(persist, { recursive: true, force: true });
  sink.close();
});

// ---- first crash: deferred attempts begun on a consumer, not yet handed over -------------------

describe('a deferred queue attempt killed between its ToolInvoked and its hand-over', () => {
  const run = { id: '' };
  const childKey = `${TAG}-child`;
  const subKey = `${TAG}-sub`;

  beforeAll(async () => {
    // Everything on the queue: the consumer that runs `a` takes the three deferred steps back from the
    // object as continuations (begun in one transaction with a's result) and runs them at once.
    run.id = await create(
      [
        { id: 'a', action: 'demo.sleep', parameters: { ms: 1500 } },
        {
          id: 'dispatch',
          action: 'agent.dispatch',
          parameters: { plan: { steps: [counter('c1', childKey)] } },
          dependencies: ['a'],
        },
        { id: 'sub', action: 'demo.echo', subplan: { steps: [counter('c1', subKey)] }, dependencies: ['a'] },
        { id: 'ask', action: 'human.input', parameters: { prompt: 'Which city?' }, dependencies: ['a'] },
      ],
      { placement: 'queue' },
    );
    // The moment the object records a deferred step's ToolInvoked it tells the run's sockets — before
    // its consumer gets to start the child or record the question: stopped there, then killed.
    const pid = server.pid;
    await new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(`${server.base.replace('http', 'ws')}/v1/runs/${run.id}/ws`);
      ws.onerror = () => reject(new Error('the run’s WebSocket failed'));
      ws.onmessage = (m: MessageEvent<string>) => {
        const e = JSON.parse(m.data) as Json;
        if (e.event_type !== 'ToolInvoked' || e.payload.step_id === 'a') return;
        process.kill(-pid, 'SIGSTOP');
        ws.close();
        resolve();
      };
    });
    await crash();
  }, 120_000);

  it('starts each child run once, after the restart, with its parent fields', async () => {
    const r = await until(
      'the children and the question',
      () => get(`/v1/runs/${run.id}`),
      (v) =>
        v.status === 'awaiting_input' &&
        v.step_statuses.dispatch === 'completed' &&
        v.step_statuses.sub === 'completed',
    );
    const expected = {
      dispatch: await childRunId({ run_id: run.id, step_id: 'dispatch', attempt: 1 }),
      sub: await childRunId({ run_id: run.id, step_id: 'sub', attempt: 1 }),
    };
    expect(r.step_results.dispatch.run_id).toBe(expected.dispatch);
    expect(r.step_results.sub.run_id).toBe(expected.sub);
    const listed = (await get(`/v1/runs?limit=100&parent_run_id=${run.id}`)).runs as Json[];
    expect(listed.map((c) => [c.run_id, c.parent_step_id]).sort()).toEqual(
      [
        [expected.dispatch, 'dispatch'],
        [expected.sub, 'sub'],
      ].sort(),
    );
    for (const [step, id] of Object.entries(expected)) {
      const child = await get(`/v1/runs/${id}`);
      expect(child).toMatchObject({ status: 'completed', parent_run_id: run.id, parent_step_id: step });
      expect(child.step_results.c1.value).toBe(1);
      // Created once (the stop usually lands before the consumer creates it, but a loaded machine may
      // let the creation win: the race itself is pinned down in test/workers/queue-handover-crash.test.ts).
      const [created] = await eventsOf(id);
      expect(created?.event_type).toBe('RunCreated');
    }
  }, 180_000);

  it('asks its question once, after the restart, and completes with the answer', async () => {
    const asked = (await eventsOf(run.id)).filter((e) => e.event_type === 'InputRequested');
    // Once, whichever won the race: recording a question takes the consumer one call, so on a loaded
    // machine it may land before the stop does (13 ms before, once). The crash between the begin and
    // the question is pinned down in test/workers/queue-handover-crash.test.ts.
    expect(asked.map((e) => e.payload.step_id)).toEqual(['ask']);
    expect((await call('POST', `/v1/runs/${run.id}/input`, { step_id: 'ask', input: 'Berlin' })).status).toBe(
      200,
    );
    const done = await ended(run.id);
    expect(done.status).toBe('completed');
    expect(done.step_results.ask).toBe('Berlin');
    const events = await eventsOf(run.id);
    gapFree(events);
    // Each deferred attempt was begun once and sent again as the same attempt, not retried anew.
    expect(per(events, 'ToolInvoked').sort()).toEqual(['a#1', 'ask#1', 'dispatch#1', 'sub#1']);
    expect(per(events, 'ToolReturned').sort()).toEqual(['a#1', 'ask#1', 'dispatch#1', 'sub#1']);
  });
});

// ---- second crash: ordinary attempts mid-flight, messages in the local queue --------------------

describe('the local queue across a crash, and batches with ended runs', () => {
  const runs = { gate: '', cancelled: '', deleted: '', live: '', ordinary: '', queued: '' };
  const keys = { count: `${TAG}-count`, q1: `${TAG}-q1`, q2: `${TAG}-q2` };

  beforeAll(async () => {
    // (a) A batch with ended runs' messages: while a consumer runs `gate`'s held request, the local
    // queue holds back the next batch — the messages of three runs, two of which end meanwhile.
    hold('gate');
    runs.gate = await create([post('g', 'gate')]);
    await until(
      'the gate held',
      () => Promise.resolve(hitsOf('gate').length),
      (n) => n === 1,
      30_000,
    );
    runs.cancelled = await create([post('t', 'cancelled')]);
    runs.deleted = await create([post('d', 'deleted')]);
    runs.live = await create([post('l', 'live')]);
    for (const id of [runs.cancelled, runs.deleted, runs.live])
      await until(
        `${id} sent its step`,
        () => get(`/v1/runs/${id}`),
        (r) => r.counts?.running === 1,
        30_000,
      );
    expect((await call('POST', `/v1/runs/${runs.cancelled}/cancel`, { reason: 'not wanted' })).status).toBe(
      200,
    );
    expect((await call('POST', `/v1/runs/${runs.deleted}/cancel`)).status).toBe(200);
    expect((await call('DELETE', `/v1/runs/${runs.deleted}`)).status).toBe(200);
    release('gate');
    for (const id of [runs.gate, runs.live]) expect((await ended(id)).status).toBe('completed');

    // (b) The crash: `ordinary`'s two attempts run on a consumer (delivered, unacked) — the request
    // held by the loopback server, the counter applied and waiting — while `queued`'s first message
    // waits behind them in the local queue (sent, not delivered).
    hold('ordinary');
    runs.ordinary = await create([
      post('hit', 'ordinary'),
      counter('count', keys.count, { parameters: { key: keys.count, delay_ms: 5000 } }),
      {
        id: 'after',
        action: 'demo.echo',
        parameters: { n: '{{ steps.hit.output.body.n }}', value: '{{ steps.count.output.value }}' },
        dependencies: ['hit', 'count'],
      },
    ]);
    await until(
      'the ordinary run mid-attempt',
      async () => ({
        hit: hitsOf('ordinary').length,
        invoked: per(await eventsOf(runs.ordinary), 'ToolInvoked'),
      }),
      (s) => s.hit === 1 && s.invoked.includes('count#1'),
      30_000,
    );
    runs.queued = await create([counter('q1', keys.q1), counter('q2', keys.q2, { dependencies: ['q1'] })]);
    await until(
      'q1 sent',
      () => get(`/v1/runs/${runs.queued}`),
      (r) => r.step_statuses?.q1 === 'running',
      30_000,
    );
    // The counter applied its effect: it waits 5 s after it, and the request is held.
    await new Promise((r) => setTimeout(r, 500));
    await crash();
  }, 180_000);

  it('never runs the tool of a message whose run was cancelled or deleted; runs the live one beside them', async () => {
    expect(hitsOf('cancelled')).toEqual([]);
    expect(hitsOf('deleted')).toEqual([]);
    expect(hitsOf('live').map((h) => h.key)).toEqual([`${runs.live}:l`]);
    const cancelled = await get(`/v1/runs/${runs.cancelled}`);
    expect(cancelled.status).toBe('cancelled');
    expect(per(await eventsOf(runs.cancelled), 'ToolInvoked')).toEqual([]);
    // Deleted stays deleted: every route answers 404, across the restart too.
    const gone = await call('GET', `/v1/runs/${runs.deleted}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('not_found');
  }, 180_000);

  it('sends a killed consumer’s ordinary attempts again with the same idempotency key, recorded once', async () => {
    const run = await ended(runs.ordinary);
    expect(run.status).toBe('completed');
    // The request twice with one key (the loopback server keeps no dedup), the counter applied once.
    expect(hitsOf('ordinary').map((h) => h.key)).toEqual([`${runs.ordinary}:hit`, `${runs.ordinary}:hit`]);
    expect(run.step_results.count).toEqual({ key: keys.count, value: 1 });
    expect(run.step_results.after).toEqual({ n: 2, value: 1 });
    const events = await eventsOf(runs.ordinary);
    gapFree(events);
    expect(per(events, 'ToolInvoked').sort()).toEqual(['after#1', 'count#1', 'hit#1']);
    expect(per(events, 'ToolReturned').sort()).toEqual(['after#1', 'count#1', 'hit#1']);
    // A witness increments the key once more under its own idempotency key: 2, so the crash added none.
    const witness = await ended(await create([counter('w', keys.count)]));
    expect(witness.step_results.w).toEqual({ key: keys.count, value: 2 });
  }, 180_000);

  it('finishes a run whose message the local queue lost, each step once', async () => {
    const run = await ended(runs.queued);
    expect(run.status).toBe('completed');
    expect(run.step_results).toEqual({ q1: { key: keys.q1, value: 1 }, q2: { key: keys.q2, value: 1 } });
    const events = await eventsOf(runs.queued);
    gapFree(events);
    expect(per(events, 'ToolInvoked')).toEqual(['q1#1', 'q2#1']);
    expect(per(events, 'ToolReturned')).toEqual(['q1#1', 'q2#1']);
    // Never begun, its message gone with the local queue: carried out in the run's object once its
    // queue window ended, saying so, and the step after it placed there too.
    const moved = events.filter((e) => e.event_type === 'StepRedispatched');
    expect(moved.map((e) => [e.payload.step_id, e.payload.attempt, e.payload.error.code])).toEqual([
      ['q1', 1, 'queue_not_consumed'],
    ]);
    expect(moved[0]!.payload.error.message).toContain('wrangler dev');
    const scheduled = events.filter((e) => e.event_type === 'StepScheduled');
    expect(scheduled.map((e) => [e.payload.step_id, e.payload.dispatch])).toEqual([
      ['q1', 'queue'],
      ['q2', 'inline'],
    ]);
    // By now the cancelled run's attempt, never begun, is past its deadline: settled as cut off by
    // the cancel, not failed, and still never sent to the loopback server.
    const cancelled = await get(`/v1/runs/${runs.cancelled}`);
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      steps: { t: { status: 'skipped', skip_reason: 'cancelled' } },
    });
    expect(hitsOf('cancelled')).toEqual([]);
  }, 180_000);
});
