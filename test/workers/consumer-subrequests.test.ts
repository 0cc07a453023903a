/**
 * One queue-consumer invocation stays within its plan's subrequests. Cloudflare ends an invocation
 * past them (Workers Free: 50); workerd under Vitest does not, so the calls are counted here, at the
 * bindings the consumer and its tools are given: every call on a run's object, a demo counter or KV.
 */
import {
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  runInDurableObject,
} from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { StepMessage } from '../../src/durable/messages';
import type { PlanRun } from '../../src/durable/plan-run';
import { consumeSteps } from '../../src/durable/step-consumer';
import { readDemoCounter } from '../../src/executor/tools/demo-counters-client';
import { PLATFORM_LIMITS } from '../../src/platform-limits';
import { countedNamespace, countedStub } from './counted-bindings';
import { startRun, waitForRun } from './helpers';

const unconsumed = (env as unknown as { STEPS_UNCONSUMED: Queue }).STEPS_UNCONSUMED;

describe('a queue consumer invocation', () => {
  it('stays within SUBREQUESTS_PER_INVOCATION while a chain of steps runs, and the run still completes', async () => {
    const limit = PLATFORM_LIMITS.subrequestsFree.value;
    const keys = Array.from({ length: 60 }, (_, i) => `subreq-${i}-${crypto.randomUUID()}`);
    const runId = await startRun(
      {
        steps: [
          // In the object (a timer): the queue is swapped before the chain's first step is sent.
          { id: 'a', action: 'demo.sleep', parameters: { ms: 200, value: 'a' } },
          ...keys.map((key, i) => ({
            id: `c${i}`,
            action: 'demo.counter',
            parameters: { key },
            dependencies: [i === 0 ? 'a' : `c${i - 1}`],
          })),
        ],
      },
      { execution_mode: 'parallel', max_steps: 100 },
    );
    // The object sends to a queue nothing consumes: the only consumer of c0 is the one invoked below,
    // and a step it does not take is carried out by the object once its window passes.
    await runInDurableObject(env.PLAN_RUN.getByName(runId), (instance: PlanRun) => {
      instance.leases.queuedMs = 300;
      Object.defineProperty(instance, 'env', { value: { ...env, STEPS: unconsumed } });
    });
    await waitForRun(runId, (r) => r.step_statuses.c0 === 'running');

    const calls = { n: 0 };
    const countedKv = countedStub(env.KV, calls);
    const counted = {
      ...env,
      SUBREQUESTS_PER_INVOCATION: String(limit),
      PLAN_RUN: countedNamespace(env.PLAN_RUN, calls),
      COUNTERS: countedNamespace(env.COUNTERS, calls),
      KV: countedKv,
    } as unknown as Env;
    const msg: StepMessage = { run_id: runId, step_id: 'c0', attempt: 1, plan_version: 1 };
    const batch = createMessageBatch<StepMessage>('steps', [
      { id: 'm1', timestamp: Date.now(), attempts: 1, body: msg },
    ]);
    const ctx = createExecutionContext();
    await consumeSteps(batch, counted);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(['m1']);

    // Without the budget the consumer took the whole chain: 1 begin + 60 counters + 60 reports.
    expect(calls.n).toBeGreaterThan(10);
    expect(calls.n).toBeLessThanOrEqual(limit);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    for (const key of keys) expect(await readDemoCounter(env, key)).toBe(1);
  });
});
