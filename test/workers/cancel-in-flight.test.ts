/**
 * A run cancelled while a step runs on the `steps` queue's consumer: the tool runs to its end (its
 * side effects happen), and its outcome comes after `RunTerminated`. The trace keeps it, marked
 * `after_run_ended`; the step counts as completed, so a retry keeps it and runs only what the cancel
 * cut off. Nothing of an ended run starts again: a message for its attempt delivered after the cancel
 * does not call the tool — nor, once the run is retried while the step still runs, a second consumer.
 */
import { runInDurableObject } from 'cloudflare:test';
import { exports, env } from 'cloudflare:workers';
import { vi, describe, expect, it } from 'vitest';
import { runObject } from '../../src/durable/run-object';
import { createClient } from '../../src/client';
import type { PlanRun } from '../../src/durable/plan-run';
import { readDemoCounter } from '../../src/executor/tools/demo-counters-client';
import { api, events, startRun, waitForRun, type Json } from './helpers';

const client = createClient({
  baseUrl: 'http://edgeplan.test',
  fetch: (input, init) => exports.default.fetch(new Request(input, init)),
});

/** A counter step on the queue that takes `ms` after its effect, and a step after it. */
async function cancelWhileQueued(k: string, ms: number) {
  const runId = await startRun(
    {
      steps: [
        { id: 'c', action: 'demo.counter', parameters: { key: k, delay_ms: ms } },
        { id: 'd', action: 'demo.echo', parameters: { after: 'c' }, dependencies: ['c'] },
      ],
    },
    { execution_mode: 'parallel' },
  );
  const stub = env.PLAN_RUN.getByName(runId);
  // Begun by the queue's consumer (ToolInvoked recorded): its tool runs.
  await vi.waitFor(
    async () => expect((await runObject(env.PLAN_RUN, runId).attempts('c'))[0]?.status).toBe('invoked'),
    {
      timeout: 10_000,
      interval: 10,
    },
  );
  const cancel = await api('POST', `/v1/runs/${runId}/cancel`, { reason: 'changed my mind' });
  expect(cancel.body).toMatchObject({ status: 'cancelled' });
  return { runId, stub };
}

const returnedFor = (evs: Json[], step: string) =>
  evs.filter((e) => e.event_type === 'ToolReturned' && e.payload.step_id === step);

describe('a step on the queue that outlives its cancelled run', () => {
  it('is recorded after RunTerminated as after_run_ended, kept, and not run again by a retry', async () => {
    const k = `late-${crypto.randomUUID()}`;
    const { runId } = await cancelWhileQueued(k, 400);
    await vi.waitFor(async () => expect(returnedFor(await events(runId), 'c')).toHaveLength(1), {
      timeout: 10_000,
      interval: 20,
    });
    const trace = await events(runId);
    const end = trace.find((e) => e.event_type === 'RunTerminated')!;
    const [late] = returnedFor(trace, 'c');
    expect(end.payload).toMatchObject({ status: 'cancelled', reason: 'changed my mind' });
    expect(late!.seq).toBeGreaterThan(end.seq);
    expect(late!.payload).toMatchObject({
      success: true,
      output: { key: k, value: 1 },
      after_run_ended: true,
    });
    // The run stays as it ended; the step that ran is completed, the one it would have led to skipped.
    const run = (await api('GET', `/v1/runs/${runId}`)).body;
    expect(run.status).toBe('cancelled');
    expect(run.step_statuses).toEqual({ c: 'completed', d: 'skipped' });
    expect(run.step_results.c).toEqual({ key: k, value: 1 });
    expect(trace.filter((e) => e.event_type === 'RunTerminated')).toHaveLength(1);
    // A client following the ended run from the start sees the late outcome, and the watch ends.
    const watched: string[] = [];
    for await (const e of client.watch(runId, { transport: 'websocket' })) watched.push(e.event_type);
    expect(watched.slice(-2)).toEqual(['RunTerminated', 'ToolReturned']);
    // A retry keeps c's result and runs only d: the effect happened once.
    expect((await api('POST', `/v1/runs/${runId}/retry`, {})).status).toBe(200);
    const retried = await waitForRun(runId, (r) => r.status === 'completed');
    expect(retried.step_results).toEqual({ c: { key: k, value: 1 }, d: { after: 'c' } });
    const all = await events(runId);
    expect(all.find((e) => e.event_type === 'RunResumed')!.payload).toEqual({ step_ids: ['d'] });
    const invokedC = all.filter((e) => e.event_type === 'ToolInvoked' && e.payload.step_id === 'c');
    expect(invokedC).toHaveLength(1);
    expect(await readDemoCounter(env, k)).toBe(1);
  });

  it('is not started again by a message for its attempt delivered after the cancel', async () => {
    const k = `late-dup-${crypto.randomUUID()}`;
    const { runId } = await cancelWhileQueued(k, 400);
    // The run's end let go of the attempt's lease: only the run's status stands in the way now.
    const [again] = await runObject(env.PLAN_RUN, runId).beginSteps([{ step_id: 'c', attempt: 1 }]);
    expect(again).toEqual({ proceed: false, reason: 'the run has ended (cancelled)' });
    await vi.waitFor(async () => expect(returnedFor(await events(runId), 'c')).toHaveLength(1), {
      timeout: 10_000,
      interval: 20,
    });
    const invokedC = (await events(runId)).filter(
      (e) => e.event_type === 'ToolInvoked' && e.payload.step_id === 'c',
    );
    expect(invokedC).toHaveLength(1);
  });

  it('is left to its consumer when the run is retried while it still runs, not handed to a second one', async () => {
    const k = `late-retry-${crypto.randomUUID()}`;
    const { runId, stub } = await cancelWhileQueued(k, 1500);
    // Retried at once: c's attempt is still out, and d waits for it again.
    expect((await api('POST', `/v1/runs/${runId}/retry`, {})).status).toBe(200);
    // The object's check on its queue attempts keeps a lease row for c again: unbegun, as it was
    // written after the run's end let go of the first one.
    await runInDurableObject(stub, async (instance: PlanRun) => {
      await instance.alarm();
    });
    // The consumer still running c renews its lease; a second send of the attempt finds it held.
    await stub.renewLeases([{ step_id: 'c', attempt: 1 }]);
    const [dup] = await runObject(env.PLAN_RUN, runId).beginSteps([{ step_id: 'c', attempt: 1 }]);
    expect(dup).toEqual({ proceed: false, reason: 'held by another consumer' });
    const run = await waitForRun(runId, (r) => r.status === 'completed');
    expect(run.step_results).toEqual({ c: { key: k, value: 1 }, d: { after: 'c' } });
    const invokedC = (await events(runId)).filter(
      (e) => e.event_type === 'ToolInvoked' && e.payload.step_id === 'c',
    );
    expect(invokedC).toHaveLength(1);
    expect(await readDemoCounter(env, k)).toBe(1);
  });
});
