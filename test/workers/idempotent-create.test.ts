/**
 * `POST /v1/runs` with an `Idempotency-Key` (SPEC §6): a retry — or two requests sent at once — is
 * answered with the one run the key created, and its side effects run once; the key with another
 * body, or a key that cannot be one, is refused with a stable code. Through the real Worker, with real
 * run objects, D1 and the demo counter's object.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import worker from '../../src/worker';
import { readDemoCounter } from '../../src/executor/tools/demo-counters-client';
import { ToolRegistry } from '../../src/executor/registry';
import { api, events, waitForRun, type Json } from './helpers';

/** `POST /v1/runs` with these headers beside the JSON content type. */
async function create(body: unknown, headers: Record<string, string> = {}) {
  const res = await exports.default.fetch(
    new Request('http://edgeplan.test/v1/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
  return {
    status: res.status,
    body: await res.json<Json>(),
    replayed: res.headers.get('Idempotent-Replayed'),
    retryAfter: res.headers.get('Retry-After'),
  };
}

/** A plan whose one step counts how often it ran, under a counter of its own. */
function countingPlan(counter: string) {
  return {
    goal: 'count once',
    steps: [{ id: 'count', action: 'demo.counter', parameters: { key: counter } }],
  };
}

const uniqueKey = () => `key-${crypto.randomUUID()}`;

/** How many rows the D1 run index holds for this run. */
async function indexRows(runId: string): Promise<number> {
  const row = await env.DB.prepare('SELECT count(*) AS n FROM runs WHERE run_id = ?')
    .bind(runId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

describe('POST /v1/runs with an Idempotency-Key', () => {
  it('answers a retry with the run the key created, says it is a replay, and runs its side effect once', async () => {
    const counter = `idem-${crypto.randomUUID()}`;
    const key = uniqueKey();
    const first = await create({ plan: countingPlan(counter) }, { 'Idempotency-Key': key });
    expect(first.status).toBe(201);
    expect(first.replayed).toBeNull();
    expect(first.body.run_id).toMatch(/^run_[0-9a-f]{32}$/);
    await waitForRun(first.body.run_id as string);

    const again = await create({ plan: countingPlan(counter) }, { 'Idempotency-Key': key });
    expect(again.status).toBe(201);
    expect(again.replayed).toBe('true');
    expect(again.body).toMatchObject({
      run_id: first.body.run_id,
      status: 'completed',
      links: { self: `/v1/runs/${first.body.run_id}` },
    });
    await waitForRun(first.body.run_id as string);
    expect(await readDemoCounter(env, counter)).toBe(1);
    expect(await indexRows(first.body.run_id as string)).toBe(1);
    const created = (await events(first.body.run_id as string)).filter((e) => e.event_type === 'RunCreated');
    expect(created).toHaveLength(1);
  });

  it('takes the same body with its keys in another order, and the key quoted as a Structured Field string', async () => {
    const key = uniqueKey();
    const plan = countingPlan(`idem-${crypto.randomUUID()}`);
    const first = await create({ plan, input: { a: 1, b: 2 } }, { 'Idempotency-Key': key });
    const reordered = `{"input":{"b":2,"a":1},"plan":${JSON.stringify(plan)}}`;
    const again = await create(reordered, { 'Idempotency-Key': `"${key}"` });
    expect([first.status, again.status, again.replayed]).toEqual([201, 201, 'true']);
    expect(again.body.run_id).toBe(first.body.run_id);
  });

  it('creates exactly one run when two requests with the same key arrive at once', async () => {
    const counter = `idem-race-${crypto.randomUUID()}`;
    const key = uniqueKey();
    const answers = await Promise.all(
      [1, 2, 3].map(() => create({ plan: countingPlan(counter) }, { 'Idempotency-Key': key })),
    );
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    const ids = new Set(answers.map((a) => a.body.run_id));
    expect(ids.size).toBe(1);
    // One of them created it; the others were told they are replays.
    expect(answers.filter((a) => a.replayed === null)).toHaveLength(1);
    const runId = answers[0]!.body.run_id as string;
    await waitForRun(runId);
    expect(await readDemoCounter(env, counter)).toBe(1);
    expect((await events(runId)).filter((e) => e.event_type === 'RunCreated')).toHaveLength(1);
    expect(await indexRows(runId)).toBe(1);
  });

  it('refuses the key with a different body (422 idempotency_key_reused) and leaves the run as it was', async () => {
    const key = uniqueKey();
    const counter = `idem-${crypto.randomUUID()}`;
    const first = await create({ plan: countingPlan(counter) }, { 'Idempotency-Key': key });
    const other = await create({ plan: countingPlan(`${counter}-other`) }, { 'Idempotency-Key': key });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    expect(other.body.error.details).toEqual({ run_id: first.body.run_id });
    expect(other.body.error.message).toContain('new key');
    const run = await waitForRun(first.body.run_id as string);
    expect(run.plan.steps[0].parameters).toEqual({ key: counter });
    expect(await readDemoCounter(env, `${counter}-other`)).toBe(0);
  });

  it('refuses the key with a different body that is no plan at all as the key’s reuse too, not as the plan’s findings', async () => {
    const key = uniqueKey();
    const first = await create(
      { plan: countingPlan(`idem-${crypto.randomUUID()}`) },
      { 'Idempotency-Key': key },
    );
    const bad = await create(
      { plan: { steps: [{ id: 'x', action: 'no.such.tool' }] } },
      { 'Idempotency-Key': key },
    );
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({
      code: 'idempotency_key_reused',
      details: { run_id: first.body.run_id },
    });
  });

  it('answers a retry with the run its key created though the request is refused now (its tool out of reach since), running nothing again', async () => {
    const key = uniqueKey();
    const counter = `idem-${crypto.randomUUID()}`;
    const first = await create({ plan: countingPlan(counter) }, { 'Idempotency-Key': key });
    expect((await waitForRun(first.body.run_id as string)).status).toBe('completed');
    // demo.counter no longer listed — as an MCP server's tool is while the server is out of reach.
    const get = Object.getOwnPropertyDescriptor(ToolRegistry.prototype, 'get')!.value as ToolRegistry['get'];
    const hidden = vi.spyOn(ToolRegistry.prototype, 'get').mockImplementation(function (
      this: ToolRegistry,
      name: string,
    ) {
      return name === 'demo.counter' ? undefined : get.call(this, name);
    });
    try {
      const fresh = await create({ plan: countingPlan(counter) });
      expect([fresh.status, fresh.body.error?.code]).toEqual([422, 'invalid_plan']);
      const retry = await create({ plan: countingPlan(counter) }, { 'Idempotency-Key': key });
      expect([retry.status, retry.replayed, retry.body.run_id]).toEqual([201, 'true', first.body.run_id]);
      expect(retry.body.status).toBe('completed');
    } finally {
      hidden.mockRestore();
    }
    expect(await readDemoCounter(env, counter)).toBe(1);
  });

  it('starts a new run for each request without a key, as before', async () => {
    const plan = countingPlan(`idem-${crypto.randomUUID()}`);
    const a = await create({ plan });
    const b = await create({ plan });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.run_id).not.toBe(b.body.run_id);
  });

  it.each([
    ['empty', '', 'is empty'],
    ['over 255 characters', 'k'.repeat(256), 'over the limit of 255'],
    ['not printable ASCII', 'clé-1', 'outside printable ASCII'],
    ['an empty quoted string', '""', 'is empty'],
  ])('refuses a key that is %s with 400 invalid_idempotency_key', async (_name, key, says) => {
    const r = await create({ plan: countingPlan('never') }, { 'Idempotency-Key': key });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_idempotency_key');
    expect(r.body.error.message).toContain(says);
    expect(await readDemoCounter(env, 'never')).toBe(0);
  });

  it('takes a key of exactly 255 characters', async () => {
    const key = `${crypto.randomUUID()}${'k'.repeat(219)}`;
    expect(key).toHaveLength(255);
    expect(
      (await create({ plan: countingPlan(`idem-${crypto.randomUUID()}`) }, { 'Idempotency-Key': key }))
        .status,
    ).toBe(201);
  });

  it('remembers nothing for a request refused before a run was made: the fixed request then creates the run', async () => {
    const key = uniqueKey();
    const bad = await create(
      { plan: { steps: [{ id: 'x', action: 'no.such.tool' }] } },
      { 'Idempotency-Key': key },
    );
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('invalid_plan');
    const good = await create(
      { plan: countingPlan(`idem-${crypto.randomUUID()}`) },
      { 'Idempotency-Key': key },
    );
    expect([good.status, good.replayed]).toEqual([201, null]);
  });

  it('creates nothing for a dry run, so the key still starts the eager run afterwards', async () => {
    const key = uniqueKey();
    const plan = countingPlan(`idem-${crypto.randomUUID()}`);
    const dry = await create({ plan, config: { mode: 'lazy' } }, { 'Idempotency-Key': key });
    expect([dry.status, dry.body.mode]).toEqual([200, 'lazy']);
    const eager = await create({ plan }, { 'Idempotency-Key': key });
    expect([eager.status, eager.replayed]).toEqual([201, null]);
  });

  it('answers a key whose run was just deleted with 409 conflict, reason run_deleted and Retry-After, never a second run over its rows', async () => {
    const key = uniqueKey();
    const plan = countingPlan(`idem-${crypto.randomUUID()}`);
    const first = await create({ plan }, { 'Idempotency-Key': key });
    const runId = first.body.run_id as string;
    await waitForRun(runId);
    expect((await api('DELETE', `/v1/runs/${runId}`)).status).toBe(200);
    const again = await create({ plan }, { 'Idempotency-Key': key });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'conflict',
      details: { reason: 'run_deleted', run_id: runId, retry_after_s: expect.any(Number) },
    });
    const wait = again.body.error.details.retry_after_s as number;
    expect(wait >= 1 && wait <= 60).toBe(true);
    expect(again.retryAfter).toBe(String(wait));
    expect(again.body.error.message).toContain('was deleted');
    expect(again.body.error.message).toContain('new key');
    expect((await api('GET', `/v1/runs/${runId}`)).status).toBe(404);
  });

  it('starts a fresh run under a deleted run’s key once its minute has passed, though its object never left memory', async () => {
    const key = uniqueKey();
    const counter = `idem-${crypto.randomUUID()}`;
    const first = await create({ plan: countingPlan(counter) }, { 'Idempotency-Key': key });
    const runId = first.body.run_id as string;
    await waitForRun(runId);
    expect((await api('DELETE', `/v1/runs/${runId}`)).status).toBe(200);
    expect((await create({ plan: countingPlan(counter) }, { 'Idempotency-Key': key })).status).toBe(409);
    // The same object, a minute on (its clock moved, not waited for): the key starts a run again.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 61_000);
      const again = await create({ plan: countingPlan(counter) }, { 'Idempotency-Key': key });
      expect([again.status, again.body.run_id, again.replayed]).toEqual([201, runId, null]);
    } finally {
      vi.useRealTimers();
    }
    const run = await waitForRun(runId);
    // A new run: its own log from seq 1, its step invoked again — under the deleted run's step key
    // (`<run_id>:count`), which demo.counter remembers, so it counts once (as the README warns).
    expect(run.status).toBe('completed');
    const log = await events(runId);
    expect([log[0]?.seq, log[0]?.event_type]).toEqual([1, 'RunCreated']);
    expect(log.filter((e) => e.event_type === 'RunCreated')).toHaveLength(1);
    expect(log.filter((e) => e.event_type === 'ToolInvoked')).toHaveLength(1);
    expect(await readDemoCounter(env, counter)).toBe(1);
    expect(await indexRows(runId)).toBe(1);
    // And it is an ordinary run again: the same key and body now replay it.
    const replay = await create({ plan: countingPlan(counter) }, { 'Idempotency-Key': key });
    expect([replay.status, replay.replayed]).toEqual([201, 'true']);
  });
});

describe('an Idempotency-Key is the caller’s own', () => {
  /** `POST /v1/runs` to the Worker as deployed with two API tokens. */
  async function createAs(token: string, body: unknown, key: string) {
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request('http://edgeplan.test/v1/runs', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          Authorization: `Bearer ${token}`,
          'Idempotency-Key': key,
        },
        body: JSON.stringify(body),
      }),
      { ...env, ALLOW_ANONYMOUS: undefined, API_TOKEN: 'tok-a,tok-b' },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return {
      status: res.status,
      body: await res.json<Json>(),
      replayed: res.headers.get('Idempotent-Replayed'),
    };
  }

  it('starts a separate run for the same key under another token, and replays under the same one', async () => {
    const key = uniqueKey();
    const body = { plan: countingPlan(`idem-${crypto.randomUUID()}`) };
    const a = await createAs('tok-a', body, key);
    const b = await createAs('tok-b', body, key);
    const aAgain = await createAs('tok-a', body, key);
    expect([a.status, b.status, aAgain.status]).toEqual([201, 201, 201]);
    expect(b.body.run_id).not.toBe(a.body.run_id);
    expect([b.replayed, aAgain.replayed]).toEqual([null, 'true']);
    expect(aAgain.body.run_id).toBe(a.body.run_id);
  });
});
