import {
  abortAllDurableObjects,
  createExecutionContext,
  createMessageBatch,
  evictDurableObject,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { runObject } from '../../src/durable/run-object';
import type { StepMessage } from '../../src/durable/messages';
import { consumeSteps } from '../../src/durable/step-consumer';
import { demoCounters, readDemoCounter } from '../../src/executor/tools/demo-counters-client';
import type { PlanRun } from '../../src/durable/plan-run';
import { api, events, startRun, waitForRun } from './helpers';

let n = 0;
/** Counter keys unique to each test, so tests never share a side-effect witness. */
const key = (name: string) => `${name}-${Date.now()}-${++n}`;
const counter = (id: string, k: string, extra: Record<string, unknown> = {}) => ({
  id,
  action: 'demo.counter',
  parameters: { key: k },
  ...extra,
});

describe('exactly once', () => {
  it('lets an inline attempt finish across a graceful eviction, once', async () => {
    const [k1, k2] = [key('evict-before'), key('evict-after')];
    const runId = await startRun({
      steps: [
        counter('c1', k1),
        { id: 'slow', action: 'demo.sleep', parameters: { ms: 200, value: 'slept' }, dependencies: ['c1'] },
        counter('c2', k2, { dependencies: ['slow'] }),
      ],
    });
    const stub = env.PLAN_RUN.getByName(runId);
    await waitForRun(runId, (r) => r.step_statuses.slow === 'running');
    await evictDurableObject(stub);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(await readDemoCounter(env, k1)).toBe(1);
    expect(await readDemoCounter(env, k2)).toBe(1);
    expect((await runObject(env.PLAN_RUN, runId).attempts('slow')).map((a) => a.attempt)).toEqual([1]);
  });

  it('re-runs an inline attempt lost to a crash mid-step with the same idempotency key, once', async () => {
    const [k1, k2] = [key('before'), key('after')];
    const runId = await startRun({
      steps: [
        counter('c1', k1),
        { id: 'slow', action: 'demo.sleep', parameters: { ms: 300, value: 'slept' }, dependencies: ['c1'] },
        counter('c2', k2, { dependencies: ['slow'] }),
      ],
    });
    const stub = env.PLAN_RUN.getByName(runId);
    await waitForRun(runId, (r) => r.step_statuses.slow === 'running');
    await abortAllDurableObjects();
    // The object is gone with its in-memory attempt; its alarm finds the attempt and runs it again.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.slow).toBe('slept');
    expect(await readDemoCounter(env, k1)).toBe(1);
    expect(await readDemoCounter(env, k2)).toBe(1);
    const attempts = await runObject(env.PLAN_RUN, runId).attempts('slow');
    expect(attempts.map((a) => a.attempt)).toEqual([1]);
  });

  it('re-runs the parallel steps an object carried out itself, lost to a crash, once each', async () => {
    const [k1, k2] = [key('fan-before'), key('fan-after')];
    const runId = await startRun(
      {
        steps: [
          counter('c1', k1),
          // demo.sleep is placed in the object: three sleeps run there at once.
          ...['s1', 's2', 's3'].map((id) => ({
            id,
            action: 'demo.sleep',
            parameters: { ms: 300, value: id },
            dependencies: ['c1'],
          })),
          counter('c2', k2, { dependencies: ['s1', 's2', 's3'] }),
        ],
      },
      { execution_mode: 'parallel', max_parallel: 3 },
    );
    const stub = env.PLAN_RUN.getByName(runId);
    await waitForRun(runId, (r) => ['s1', 's2', 's3'].every((id) => r.step_statuses[id] === 'running'));
    await abortAllDurableObjects();
    // Gone with the instance: the alarm finds the three attempts and runs each again, same attempt.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect([run.step_results.s1, run.step_results.s2, run.step_results.s3]).toEqual(['s1', 's2', 's3']);
    expect(await readDemoCounter(env, k1)).toBe(1);
    expect(await readDemoCounter(env, k2)).toBe(1);
    for (const id of ['s1', 's2', 's3']) {
      const attempts = await runObject(env.PLAN_RUN, runId).attempts(id);
      expect(attempts.map((a) => [a.attempt, a.dispatch, a.status])).toEqual([[1, 'inline', 'succeeded']]);
    }
  });

  it('survives evictions between queued steps without losing or repeating any', async () => {
    const keys = [key('q1'), key('q2'), key('q3'), key('q4')];
    const runId = await startRun(
      {
        steps: [
          counter('a', keys[0]!),
          counter('b', keys[1]!, { dependencies: ['a'] }),
          counter('c', keys[2]!, { dependencies: ['b'] }),
          counter('d', keys[3]!, { dependencies: ['c'] }),
        ],
      },
      { execution_mode: 'parallel' },
    );
    const stub = env.PLAN_RUN.getByName(runId);
    for (let i = 0; i < 3; i++) {
      await evictDurableObject(stub).catch(() => undefined); // not running at that instant: nothing to evict
      await new Promise((r) => setTimeout(r, 5));
    }
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    for (const k of keys) expect(await readDemoCounter(env, k)).toBe(1);
  });

  it('ignores a step message delivered twice: the side effect happens once, the result is recorded once', async () => {
    const k = key('dup');
    const runId = await startRun({ steps: [counter('a', k)] }, { execution_mode: 'parallel' });
    const run = await waitForRun(runId);
    expect(run.step_results.a).toEqual({ key: k, value: 1 });
    const msg: StepMessage = { run_id: runId, step_id: 'a', attempt: 1, plan_version: 1 };
    const batch = createMessageBatch<StepMessage>('steps', [
      { id: 'm1', timestamp: Date.now(), attempts: 1, body: msg },
      { id: 'm2', timestamp: Date.now(), attempts: 2, body: msg },
    ]);
    const ctx = createExecutionContext();
    await consumeSteps(batch, env);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(['m1', 'm2']);
    expect(await readDemoCounter(env, k)).toBe(1);
    const returned = (await events(runId)).filter((e) => e.event_type === 'ToolReturned');
    expect(returned).toHaveLength(1);
  });

  it('a consumer that crashes after the side effect has its message retried, and the repeat changes nothing', async () => {
    const k = key('crash');
    // The counter increments, then waits: a window where the effect happened but is not yet reported.
    const runId = await startRun(
      { steps: [counter('c', k, { parameters: { key: k, delay_ms: 300 } })] },
      { execution_mode: 'parallel' },
    );
    await waitForRun(runId, (r) => r.step_statuses.c === 'running');
    let failures = 1;
    const crashingEnv = {
      ...env,
      PLAN_RUN: {
        getByName(name: string) {
          const real = env.PLAN_RUN.getByName(name);
          return {
            beginSteps: (r: { step_id: string; attempt: number }[]) => real.beginSteps(r),
            completeSteps: (...args: Parameters<typeof real.completeSteps>) => {
              if (failures-- > 0) return Promise.reject(new Error('consumer died before reporting'));
              return real.completeSteps(...args);
            },
          };
        },
      },
    } as unknown as Env;
    const msg: StepMessage = { run_id: runId, step_id: 'c', attempt: 1, plan_version: 1 };
    const first = createMessageBatch<StepMessage>('steps', [
      { id: 'x1', timestamp: Date.now(), attempts: 1, body: msg },
    ]);
    const ctx1 = createExecutionContext();
    await consumeSteps(first, crashingEnv);
    expect((await getQueueResult(first, ctx1)).retryMessages.map((m) => m.msgId)).toEqual(['x1']);
    // The queue redelivers: same attempt, same idempotency key.
    const again = createMessageBatch<StepMessage>('steps', [
      { id: 'x1', timestamp: Date.now(), attempts: 2, body: msg },
    ]);
    const ctx2 = createExecutionContext();
    await consumeSteps(again, crashingEnv);
    expect((await getQueueResult(again, ctx2)).explicitAcks).toEqual(['x1']);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.c).toEqual({ key: k, value: 1 });
    expect(await readDemoCounter(env, k)).toBe(1);
    const returned = (await events(runId)).filter((e) => e.event_type === 'ToolReturned');
    expect(returned).toHaveLength(1);
  });

  it('every attempt of a step carries one idempotency key, so attempts timed out after their effect apply it once', async () => {
    const k = key('timeouts');
    // Each attempt increments, then outlives its deadline: three attempts, three timeouts, one effect.
    const runId = await startRun(
      { steps: [counter('c', k, { parameters: { key: k, delay_ms: 400 }, timeout_ms: 100 })] },
      { retry_failed_steps: 2, retry_delay: 0.01 },
    );
    const run = await waitForRun(runId);
    expect(run.status).toBe('failed');
    const invoked = (await events(runId)).filter((e) => e.event_type === 'ToolInvoked');
    expect(invoked.map((e) => e.payload.attempt)).toEqual([1, 2, 3]);
    expect(new Set(invoked.map((e) => e.payload.idempotency_key))).toEqual(new Set([`${runId}:c`]));
    expect(await readDemoCounter(env, k)).toBe(1);
  });

  /**
   * A run of `a` then the counter `b`, leases shortened to 300 ms. A consumer reports a's result itself
   * and takes b back as a continuation (no queue message) — then dies.
   */
  async function loseAContinuation(k: string) {
    const runId = await startRun(
      {
        steps: [
          { id: 'a', action: 'demo.sleep', parameters: { ms: 400, value: 'a' } },
          counter('b', k, { dependencies: ['a'] }),
        ],
      },
      { execution_mode: 'parallel' },
    );
    const stub = env.PLAN_RUN.getByName(runId);
    await runInDurableObject(stub, (instance: PlanRun) => {
      instance.leases.ttlMs = 300;
    });
    await waitForRun(runId, (r) => r.step_statuses.a === 'running');
    const [taken] = await runObject(env.PLAN_RUN, runId).completeSteps(
      [{ step_id: 'a', attempt: 1, outcome: { success: true, output: 'a', latency_ms: 1 } }],
      1,
    );
    expect(taken).toMatchObject({ step_id: 'b', attempt: 1, idempotency_key: `${runId}:b` });
    return runId;
  }

  it('sends a step again when the consumer that took it dies after its side effect, which applies once', async () => {
    const k = key('lost-consumer');
    const runId = await loseAContinuation(k);
    // The consumer applied b's side effect before it died.
    await demoCounters(env).increment(k, `${runId}:b`);
    // Its lease runs out; the alarm sends b again, and the repeat finds the effect already applied.
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.b).toEqual({ key: k, value: 1 });
    expect(await readDemoCounter(env, k)).toBe(1);
    expect(run.steps.b.attempts).toBe(1);
    const invokedB = (await events(runId)).filter(
      (e) => e.event_type === 'ToolInvoked' && e.payload.step_id === 'b',
    );
    expect(invokedB).toHaveLength(1);
  });

  it('knows a dead consumer’s lease ran out after the object itself was unloaded', async () => {
    const k = key('lost-consumer-unloaded');
    const runId = await loseAContinuation(k);
    // The idle object is unloaded too: a new instance wakes with the alarm and reads the lease's row.
    await abortAllDurableObjects();
    await new Promise((r) => setTimeout(r, 400));
    const stub = env.PLAN_RUN.getByName(runId);
    const before = (await api('GET', `/v1/runs/${runId}/status`)).body;
    // The alarm is due — unless it already fired on its own, sent b again and the run ended, after
    // which no alarm is left (an ended run keeps none).
    const ran = await runDurableObjectAlarm(stub);
    expect(ran || before.run_status === 'completed').toBe(true);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.b).toEqual({ key: k, value: 1 });
    expect(run.steps.b.attempts).toBe(1);
    // The new instance knew b had begun: sent again, it is not recorded as begun a second time.
    const invokedB = (await events(runId)).filter(
      (e) => e.event_type === 'ToolInvoked' && e.payload.step_id === 'b',
    );
    expect(invokedB.map((e) => e.payload.attempt)).toEqual([1]);
  });

  it('records an attempt as begun once, though its message comes again after the object was unloaded', async () => {
    const k = key('begun-unloaded');
    const runId = await startRun(
      { steps: [counter('c', k, { parameters: { key: k, delay_ms: 300 } })] },
      { execution_mode: 'parallel' },
    );
    await vi.waitFor(
      async () => expect((await runObject(env.PLAN_RUN, runId).attempts('c'))[0]?.status).toBe('invoked'),
      { timeout: 5_000, interval: 10 },
    );
    // The object loses its memory; the queue redelivers the message (its consumer died).
    await abortAllDurableObjects();
    const [again] = await runObject(env.PLAN_RUN, runId).beginSteps([
      { step_id: 'c', attempt: 1, redelivered: true },
    ]);
    expect(again).toMatchObject({ proceed: true, idempotency_key: `${runId}:c` });
    const run = await waitForRun(runId);
    expect(run.step_results.c).toEqual({ key: k, value: 1 });
    const invoked = (await events(runId)).filter((e) => e.event_type === 'ToolInvoked');
    expect(invoked.map((e) => `${e.payload.step_id}#${e.payload.attempt}`)).toEqual(['c#1']);
  });

  it('leaves an attempt to the live consumer holding its lease; a redelivery takes it over', async () => {
    const k = key('held');
    const runId = await startRun(
      { steps: [counter('c', k, { parameters: { key: k, delay_ms: 300 } })] },
      { execution_mode: 'parallel' },
    );
    await vi.waitFor(
      async () => expect((await runObject(env.PLAN_RUN, runId).attempts('c'))[0]?.status).toBe('invoked'),
      {
        timeout: 5_000,
        interval: 10,
      },
    );
    // A duplicate send of the attempt while its consumer runs it: left alone.
    const [dup] = await runObject(env.PLAN_RUN, runId).beginSteps([{ step_id: 'c', attempt: 1 }]);
    expect(dup).toEqual({ proceed: false, reason: 'held by another consumer' });
    // The queue's redelivery (its consumer gave up or died) takes the lease over, same key.
    const [again] = await runObject(env.PLAN_RUN, runId).beginSteps([
      { step_id: 'c', attempt: 1, redelivered: true },
    ]);
    expect(again).toMatchObject({ proceed: true, idempotency_key: `${runId}:c` });
    const run = await waitForRun(runId);
    expect(run.step_results.c).toEqual({ key: k, value: 1 });
  });

  it('running the alarm again changes nothing', async () => {
    const k = key('alarm');
    const runId = await startRun({
      steps: [counter('a', k), counter('b', key('alarm-b'), { dependencies: ['a'] })],
    });
    const run = await waitForRun(runId);
    const stub = env.PLAN_RUN.getByName(runId);
    const before = (await events(runId)).length;
    await runInDurableObject(stub, async (instance) => {
      await instance.alarm();
      await instance.alarm();
    });
    await runDurableObjectAlarm(stub);
    expect((await events(runId)).length).toBe(before);
    expect(run.status).toBe('completed');
    expect(await readDemoCounter(env, k)).toBe(1);
  });

  it('retrying a failed run re-runs only the failed step and keeps completed side effects', async () => {
    const k = key('retry');
    const flakyKey = key('flaky');
    const runId = await startRun(
      {
        steps: [
          counter('a', k),
          {
            id: 'f',
            action: 'demo.flaky',
            parameters: { fail_times: 1, key: flakyKey },
            dependencies: ['a'],
          },
        ],
      },
      { retry_failed_steps: 0 },
    );
    const failed = await waitForRun(runId);
    expect(failed.status).toBe('failed');
    const r = await api('POST', `/v1/runs/${runId}/retry`, {});
    expect(r.status).toBe(200);
    const run = await waitForRun(runId, (x) => x.status === 'completed');
    expect(run.step_results.a).toEqual({ key: k, value: 1 });
    expect(await readDemoCounter(env, k)).toBe(1);
    expect(run.steps.f.attempts).toBe(2);
  });
});
