/**
 * A Worker that sends steps to a queue nothing consumes (no [[queues.consumers]] for it, or no queue
 * handler exported): here the run's object sends to `STEPS_UNCONSUMED`, a real queue with no consumer.
 * An attempt no consumer takes within its window is carried out in the run's object instead — same
 * attempt, same idempotency key, once — and the trace (`StepRedispatched`, `queue_not_consumed`) and
 * the log say what to fix; the run's later steps are placed in the object too.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { runObject } from '../../src/durable/run-object';
import type { PlanRun } from '../../src/durable/plan-run';
import { FORMAT_KEY, STORAGE_FORMAT } from '../../src/durable/storage-format';
import { QUEUE_BYPASSED } from '../../src/durable/untaken-attempts';
import { readDemoCounter } from '../../src/executor/tools/demo-counters-client';
import { api, events, startRun, waitForRun, type Json } from './helpers';

const unconsumed = (env as unknown as { STEPS_UNCONSUMED: Queue }).STEPS_UNCONSUMED;

describe('a steps queue nothing consumes', () => {
  it('has the run carry the attempt out in its object, once, saying why in the trace and the log', async () => {
    const logged = vi.spyOn(console, 'error');
    const [kb, kc] = [`unconsumed-b-${crypto.randomUUID()}`, `unconsumed-c-${crypto.randomUUID()}`];
    const runId = await startRun(
      {
        steps: [
          // In the object (a timer): the queue is swapped before the steps after it are sent.
          { id: 'a', action: 'demo.sleep', parameters: { ms: 200, value: 'a' } },
          { id: 'b', action: 'demo.counter', parameters: { key: kb, delay_ms: 300 }, dependencies: ['a'] },
          { id: 'c', action: 'demo.counter', parameters: { key: kc }, dependencies: ['b'] },
        ],
      },
      { execution_mode: 'parallel' },
    );
    const stub = env.PLAN_RUN.getByName(runId);
    await runInDurableObject(stub, (instance: PlanRun) => {
      instance.leases.queuedMs = 300;
      // The object's queue binding becomes one nothing consumes (its other bindings stay as they are).
      Object.defineProperty(instance, 'env', { value: { ...env, STEPS: unconsumed } });
    });
    // No consumer takes b: its window passes, and the object takes it on.
    let moved: Json | undefined;
    await vi.waitFor(
      async () => {
        moved = (await events(runId)).find((e) => e.event_type === 'StepRedispatched');
        expect(moved).toBeDefined();
      },
      { timeout: 10_000, interval: 20 },
    );
    expect(moved!.payload).toMatchObject({ step_id: 'b', attempt: 1, dispatch: 'inline' });
    expect(moved!.payload.waited_ms).toBeGreaterThanOrEqual(300);
    expect(moved!.payload.error).toMatchObject({ code: 'queue_not_consumed', retryable: true });
    expect(moved!.payload.error.message).toContain('STEPS');
    expect(moved!.payload.error.message).toContain('[[queues.consumers]]');
    expect(moved!.payload.error.message).toContain('export default edgeplan.default');
    // A consumer that shows up late with b's message is turned away: the object runs it.
    const [late] = await runObject(env.PLAN_RUN, runId).beginSteps([{ step_id: 'b', attempt: 1 }]);
    expect(late).toEqual({ proceed: false, reason: 'carried out in the run’s object' });
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results).toMatchObject({ b: { key: kb, value: 1 }, c: { key: kc, value: 1 } });
    expect([await readDemoCounter(env, kb), await readDemoCounter(env, kc)]).toEqual([1, 1]);
    const trace = await events(runId);
    const of = (type: string, step: string) =>
      trace.filter((e) => e.event_type === type && e.payload.step_id === step);
    // b: queued, moved, then begun once — in the object, with the key it had.
    expect(of('StepScheduled', 'b').map((e) => e.payload.dispatch)).toEqual(['queue']);
    expect(of('ToolInvoked', 'b')).toHaveLength(1);
    expect(of('ToolInvoked', 'b')[0]!.seq).toBeGreaterThan(moved!.seq);
    expect(of('ToolInvoked', 'b')[0]!.payload.idempotency_key).toBe(`${runId}:b`);
    // c, scheduled after: placed in the object from the start, with no wait on the queue.
    expect(of('StepScheduled', 'c').map((e) => e.payload.dispatch)).toEqual(['inline']);
    expect(trace.filter((e) => e.event_type === 'StepRedispatched')).toHaveLength(1);
    // The log says it too, with the code to search for.
    const lines = logged.mock.calls.map((c) => c.map(String).join(' '));
    expect(lines.some((l) => l.includes(runId) && l.includes('queue_not_consumed'))).toBe(true);
    logged.mockRestore();
  });

  it('says the run was held, not that the queue is unconsumed, when it looks long after the window (a rollback)', async () => {
    const logged = vi.spyOn(console, 'warn');
    const [kb, kc] = [`held-b-${crypto.randomUUID()}`, `held-c-${crypto.randomUUID()}`];
    const runId = await startRun(
      {
        steps: [
          { id: 'a', action: 'demo.sleep', parameters: { ms: 200, value: 'a' } },
          { id: 'b', action: 'demo.counter', parameters: { key: kb }, dependencies: ['a'] },
          { id: 'c', action: 'demo.counter', parameters: { key: kc }, dependencies: ['b'] },
        ],
      },
      { execution_mode: 'parallel' },
    );
    const stub = () => env.PLAN_RUN.getByName(runId);
    // b's message goes where nothing takes it — as a message refused until it ran out of retries.
    await runInDurableObject(stub(), (instance: PlanRun) => {
      Object.defineProperty(instance, 'env', { value: { ...env, STEPS: unconsumed } });
    });
    await vi.waitFor(
      async () => {
        const queued = (await events(runId)).find(
          (e) => e.event_type === 'StepScheduled' && e.payload.step_id === 'b',
        );
        expect(queued?.payload.dispatch).toBe('queue');
      },
      { timeout: 10_000, interval: 20 },
    );
    // A rollback: the older release refuses the run (a newer storage format) and its alarm waits.
    await runInDurableObject(stub(), (_i, state) =>
      state.storage.sql.exec(
        'INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)',
        FORMAT_KEY,
        String(STORAGE_FORMAT + 1),
      ),
    );
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(stub())).toBe(true);
    expect((await api('GET', `/v1/runs/${runId}`)).body.error.code).toBe('run_newer_format');
    // 80 minutes pass: b's queue window ended that long before the run is looked at again…
    await runInDurableObject(stub(), (_i, state) => {
      state.storage.sql.exec('UPDATE leases SET until = ? WHERE step_id = ?', Date.now() - 80 * 60_000, 'b');
      // …when the newer release is back (its format is this release's).
      state.storage.sql.exec('DELETE FROM meta WHERE key = ?', FORMAT_KEY);
    });
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(stub())).toBe(true);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect([await readDemoCounter(env, kb), await readDemoCounter(env, kc)]).toEqual([1, 1]);
    const trace = await events(runId);
    const moved = trace.filter((e) => e.event_type === 'StepRedispatched');
    expect(moved.map((e) => e.payload.step_id)).toEqual(['b']);
    expect(moved[0]!.payload.error).toMatchObject({ code: 'held_past_queue_window', retryable: true });
    expect(moved[0]!.payload.error.message).toContain('80 min after its queue window ended');
    expect(moved[0]!.payload.error.message).toContain('rollback');
    // The queue is consumed: c, scheduled after, goes to it as before, and nothing marks it bypassed.
    const c = trace.filter((e) => e.event_type === 'StepScheduled' && e.payload.step_id === 'c');
    expect(c.map((e) => e.payload.dispatch)).toEqual(['queue']);
    const bypassed = await runInDurableObject(
      stub(),
      (_i, state) =>
        state.storage.sql.exec('SELECT count(*) AS n FROM meta WHERE key = ?', QUEUE_BYPASSED).one().n,
    );
    expect(bypassed).toBe(0);
    const lines = logged.mock.calls.map((l) => l.map(String).join(' '));
    expect(lines.some((l) => l.includes(runId) && l.includes('held_past_queue_window'))).toBe(true);
    expect(lines.some((l) => l.includes(runId) && l.includes('queue_not_consumed'))).toBe(false);
    logged.mockRestore();
  });

  it('has a cancel skip an attempt no consumer took at once, not leave it running until its deadline', async () => {
    const kb = `unconsumed-cancel-${crypto.randomUUID()}`;
    const runId = await startRun(
      {
        steps: [
          { id: 'a', action: 'demo.sleep', parameters: { ms: 200, value: 'a' } },
          { id: 'b', action: 'demo.counter', parameters: { key: kb }, dependencies: ['a'] },
        ],
      },
      { execution_mode: 'parallel' },
    );
    await runInDurableObject(env.PLAN_RUN.getByName(runId), (instance: PlanRun) => {
      Object.defineProperty(instance, 'env', { value: { ...env, STEPS: unconsumed } });
    });
    await vi.waitFor(
      async () =>
        expect(
          (await events(runId)).some((e) => e.event_type === 'StepScheduled' && e.payload.step_id === 'b'),
        ).toBe(true),
      { timeout: 5_000, interval: 20 },
    );
    expect((await api('GET', `/v1/runs/${runId}`)).body.steps.b.status).toBe('running');
    expect((await api('POST', `/v1/runs/${runId}/cancel`, {})).status).toBe(200);
    const run = (await api('GET', `/v1/runs/${runId}`)).body;
    expect(run.status).toBe('cancelled');
    expect(run.steps.b).toMatchObject({ status: 'skipped', skip_reason: 'cancelled' });
    expect(run.counts.running).toBe(0);
    // A retry reopens it (on a consumed queue again: the object's env is its own once more).
    await abortAllDurableObjects();
    expect((await api('POST', `/v1/runs/${runId}/retry`, {})).status).toBe(200);
    expect((await waitForRun(runId)).status).toBe('completed');
    expect(await readDemoCounter(env, kb)).toBe(1);
  });
});
