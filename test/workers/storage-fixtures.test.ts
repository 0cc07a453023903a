/**
 * Runs in flight across a deploy: every frozen storage fixture (test/fixtures/storage/v<N>/, real run
 * objects captured by `npm run capture:storage` from the release that wrote format N) is loaded into a
 * fresh object and driven to completion by this release — approved, its queue messages delivered by
 * the current consumer, its retry left to fire, its child run answered — and no step runs twice: each
 * attempt is invoked and returns at most once, each counting step counts once, the log keeps its
 * history gap-free and every stored event reads back through the API's zod schema. A change that
 * breaks a run stored by an earlier release fails here (docs/upgrading.md).
 */
/// <reference types="vite/client" />
import {
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
  waitOnExecutionContext,
} from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { StepMessage } from '../../src/durable/messages';
import { DEAD_LETTER_QUEUE } from '../../src/durable/dead-letter-consumer';
import { STORAGE_MIGRATIONS } from '../../src/durable/storage-format';
import { demoCounters, readDemoCounter } from '../../src/executor/tools/demo-counters-client';
import { RunEventSchema } from '../../src/http/schemas/events';
import worker from '../../src/worker';
import { api, waitForRun, type Json } from './helpers';
import { loadFixture, type StorageFixture } from './storage-fixture';

const DAY_MS = 24 * 3600 * 1000;

/** Every fixture of every format, by `v<N>/<name>`. */
const FIXTURES = Object.fromEntries(
  Object.entries(
    import.meta.glob<StorageFixture>('../fixtures/storage/v*/*.json', { eager: true, import: 'default' }),
  ).map(([path, f]) => [path.replace('../fixtures/storage/', '').replace(/\.json$/, ''), f]),
);

/** The events a run's object stores, read straight from its rows. */
const storedEvents = (runId: string) =>
  runInDurableObject(env.PLAN_RUN.getByName(runId), (_i, state) =>
    state.storage.sql
      .exec<{ seq: number; body: string }>('SELECT seq, body FROM events ORDER BY seq')
      .toArray()
      .map((r) => JSON.parse(r.body) as unknown),
  );

/** What every driven fixture must show: nothing ran twice, history kept, events readable. */
async function expectRunOnce(f: StorageFixture, counted: Record<string, number>): Promise<void> {
  for (const o of f.objects) {
    const stored = await storedEvents(o.run_id);
    // Read back through zod: the API's schema of every event type.
    const parsed = stored.map((e) => RunEventSchema.parse(e));
    expect(parsed.map((e) => e.seq)).toEqual(parsed.map((_e, i) => i + 1));
    // The history the fixture held is kept as it was (its times aside: they were moved).
    const before = (o.rows.events ?? []).map((r) => [r.seq, r.event_type]);
    expect(parsed.slice(0, before.length).map((e) => [e.seq, e.event_type])).toEqual(before);
    for (const type of ['ToolInvoked', 'ToolReturned'] as const) {
      const keys = parsed.flatMap((e) => {
        if (e.event_type !== type) return [];
        const p = e.payload as { step_id: string; attempt: number };
        return [`${p.step_id}#${p.attempt}`];
      });
      expect(keys, `${o.run_id} ${type}`).toEqual([...new Set(keys)]);
    }
    const served = await api('GET', `/v1/runs/${o.run_id}/events?limit=1000`);
    expect(served.status).toBe(200);
    expect(served.body.events).toHaveLength(parsed.length);
  }
  const keys = (f.notes?.counters as string[] | undefined) ?? [];
  expect(keys.length).toBeGreaterThan(0);
  for (const key of keys) expect(await readDemoCounter(env, key), key).toBe((counted[key] ?? 0) + 1);
}

const countersOf = async (f: StorageFixture) =>
  Object.fromEntries(
    await Promise.all(
      ((f.notes?.counters as string[] | undefined) ?? []).map(async (k) => [
        k,
        await readDemoCounter(env, k),
      ]),
    ),
  ) as Record<string, number>;

const invoked = (events: Json[], step: string) =>
  events
    .filter((e) => e.event_type === 'ToolInvoked' && e.payload.step_id === step)
    .map((e) => e.payload.attempt);

/** `POST /v1/runs` with an `Idempotency-Key`, through the Worker. */
async function createWithKey(key: string, body: unknown) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request('http://edgeplan.test/v1/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify(body),
    }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return {
    status: res.status,
    replayed: res.headers.get('Idempotent-Replayed'),
    body: await res.json<Json>(),
  };
}

/** The plan versions each `ApprovalRequested` and each step's first `StepScheduled` came at, by seq. */
const seqOf = (events: Json[], type: string, pred: (e: Json) => boolean = () => true) =>
  events.filter((e) => e.event_type === type && pred(e)).map((e) => e.seq as number);

/** How this release carries each captured state on, by the fixture's name. */
const DRIVERS: Record<string, (f: StorageFixture) => Promise<void>> = {
  'awaiting-approval': async (f) => {
    // The approver took three days of the week they had.
    const counted = await countersOf(f);
    await loadFixture(f, 3 * DAY_MS);
    const runId = f.objects[0]!.run_id;
    expect((await api('GET', `/v1/runs/${runId}`)).body.status).toBe('awaiting_approval');
    expect((await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' })).status).toBe(200);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.b).toEqual({ n: counted['fx-approval-a']! + 1 });
    await expectRunOnce(f, counted);
  },

  'queue-attempt': async (f) => {
    const counted = await countersOf(f);
    await loadFixture(f);
    const runId = f.objects[0]!.run_id;
    // The messages the old release sent, delivered through the real queue to the current consumer.
    expect(f.queued).toHaveLength(2);
    await env.STEPS.sendBatch(f.queued!);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.steps.q1.attempts).toBe(1);
    expect(run.steps.q2.attempts).toBe(1);
    await expectRunOnce(f, counted);
    // The same messages dead-lettered late, through the current dead-letter consumer: acked, and the
    // attempts' recorded results stand.
    const batch = createMessageBatch<StepMessage>(
      DEAD_LETTER_QUEUE,
      f.queued!.map((m, i) => ({
        id: `d${i}`,
        timestamp: new Date(),
        attempts: 1,
        body: m.body,
      })),
    );
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    expect((await getQueueResult(batch, ctx)).explicitAcks.sort()).toEqual(['d0', 'd1']);
    expect((await api('GET', `/v1/runs/${runId}`)).body.status).toBe('completed');
    await expectRunOnce(f, counted);
  },

  'mid-retry': async (f) => {
    const counted = await countersOf(f);
    // The world the run failed in: demo.flaky's attempts so far.
    const flaky = f.notes!.flaky as Record<string, number>;
    for (const [key, n] of Object.entries(flaky))
      for (let i = 0; i < n; i++) await demoCounters(env).flakyAttempt(key);
    // The deploy landed after the retry came due: the alarm fires it.
    await loadFixture(f, 601_000);
    const runId = f.objects[0]!.run_id;
    await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId));
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.f).toEqual({ attempts: 2 });
    expect(
      invoked((await api('GET', `/v1/runs/${runId}/events?limit=1000`)).body.events as Json[], 'f'),
    ).toEqual([1, 2]);
    await expectRunOnce(f, counted);
  },

  'child-run': async (f) => {
    const counted = await countersOf(f);
    await loadFixture(f, 3_600_000);
    const [parent, child] = f.objects.map((o) => o.run_id) as [string, string];
    expect(child).toBe(f.notes!.child);
    expect((await api('GET', `/v1/runs/${child}`)).body.status).toBe('awaiting_input');
    const answered = await api('POST', `/v1/runs/${child}/input`, { input: 'yes', step_id: 'ask' });
    expect(answered.status).toBe(200);
    expect((await waitForRun(child)).status).toBe('completed');
    const run = await waitForRun(parent);
    expect(run.status).toBe('completed');
    expect(run.step_results.child).toMatchObject({ status: 'completed', run_id: child });
    expect(run.steps.child.attempts).toBe(1);
    await expectRunOnce(f, counted);
  },
  'revision-approval': async (f) => {
    // The approver took three days to look at v2.
    const counted = await countersOf(f);
    await loadFixture(f, 3 * DAY_MS);
    const runId = f.objects[0]!.run_id;
    const waiting = (await api('GET', `/v1/runs/${runId}`)).body;
    expect([waiting.status, waiting.plan_version]).toEqual(['awaiting_approval', 2]);
    expect(waiting.steps.fixed.attempts).toBe(0);
    const approved = await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve', comment: 'v2' });
    expect(approved.status).toBe(200);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.fixed).toEqual({
      key: 'fx-revision-fixed',
      value: counted['fx-revision-fixed']! + 1,
    });
    const events = (await api('GET', `/v1/runs/${runId}/events?limit=1000`)).body.events as Json[];
    expect(
      events.filter((e) => e.event_type === 'ApprovalRequested').map((e) => e.payload.plan_version),
    ).toEqual([1, 2]);
    // v2's step began after its approval, not before.
    const granted = seqOf(events, 'ApprovalGranted');
    expect(granted).toHaveLength(2);
    const fixed = seqOf(events, 'StepScheduled', (e) => e.payload.step_id === 'fixed');
    expect(fixed).toHaveLength(1);
    expect(fixed[0]!).toBeGreaterThan(granted[1]!);
    // The run still asks for its revisions: the stored config kept `approval.revisions`.
    const meta = await runInDurableObject(env.PLAN_RUN.getByName(runId), (_i, state) =>
      state.storage.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'run'").one(),
    );
    expect((JSON.parse(meta.value) as Json).config.approval.revisions).toBe('ask');
    await expectRunOnce(f, counted);
  },

  'held-back-question': async (f) => {
    const counted = await countersOf(f);
    await loadFixture(f, 3_600_000);
    const runId = f.objects[0]!.run_id;
    const waiting = (await api('GET', `/v1/runs/${runId}`)).body;
    expect([waiting.status, waiting.plan_version, waiting.steps.ask.status]).toEqual([
      'awaiting_approval',
      2,
      'running',
    ]);
    expect((await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' })).status).toBe(200);
    // The question held back while v2 waited is asked now, once.
    const asking = await waitForRun(runId, (r) => r.status === 'awaiting_input');
    expect(asking.steps.after.attempts).toBe(0);
    const answered = await api('POST', `/v1/runs/${runId}/input`, { input: 'eu-west', step_id: 'ask' });
    expect(answered.status).toBe(200);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.after).toEqual({ region: 'eu-west' });
    const events = (await api('GET', `/v1/runs/${runId}/events?limit=1000`)).body.events as Json[];
    expect(seqOf(events, 'InputRequested')).toHaveLength(1);
    expect(seqOf(events, 'InputRequested')[0]!).toBeGreaterThan(seqOf(events, 'ApprovalGranted')[1]!);
    expect(invoked(events, 'ask')).toEqual([1]);
    await expectRunOnce(f, counted);
  },

  'idempotent-run': async (f) => {
    const counted = await countersOf(f);
    await loadFixture(f);
    const runId = f.objects[0]!.run_id;
    const { key, body } = f.notes as { key: string; body: Json };
    // A client retrying its create after the deploy gets the run the first request made, nothing new.
    const again = await createWithKey(key, body);
    expect([again.status, again.replayed, again.body.run_id]).toEqual([201, 'true', runId]);
    const other = await createWithKey(key, { ...body, config: { placement: 'object' } });
    expect([other.status, other.body.error.code]).toEqual([422, 'idempotency_key_reused']);
    expect(f.queued).toHaveLength(1);
    await env.STEPS.sendBatch(f.queued!);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect([run.steps.first.attempts, run.steps.then.attempts]).toEqual([1, 1]);
    const late = await createWithKey(key, body);
    expect([late.status, late.body.run_id, late.body.status]).toEqual([201, runId, 'completed']);
    await expectRunOnce(f, counted);
  },
};

describe('runs stored by earlier releases (frozen storage fixtures)', () => {
  it('has fixtures for every storage format, each with a driver here', () => {
    for (const m of STORAGE_MIGRATIONS)
      expect(
        Object.keys(FIXTURES).filter((k) => k.startsWith(`v${m.to}/`)).length,
        `v${m.to}`,
      ).toBeGreaterThan(0);
    for (const key of Object.keys(FIXTURES)) expect(Object.keys(DRIVERS), key).toContain(key.split('/')[1]);
  });

  for (const [key, f] of Object.entries(FIXTURES)) {
    it(`carries ${key} on to completion, running nothing twice: ${f.about}`, async () => {
      await DRIVERS[key.split('/')[1]!]!(f);
    });
  }
});
