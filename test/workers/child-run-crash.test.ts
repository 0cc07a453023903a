/**
 * A step that starts a child run (`agent.dispatch`, or a step's sub-plan) when the parent's instance
 * dies around the child's creation: before the child exists, or after it exists but before the parent
 * heard back. The parent's attempt is recorded (ToolInvoked) before the child is created, and the
 * child's id is derived from that attempt — so after the crash the parent must start the child or find
 * it, exactly one child, with its parent fields (migration 0007) right, and finish without waiting
 * for the child-run time limit (an hour).
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { childRunId } from '../../src/engine/child-run';
import type { PlanRun } from '../../src/durable/plan-run';
import { readDemoCounter } from '../../src/executor/tools/demo-counters-client';
import { api, events, startRun, waitForRun, type Json } from './helpers';

let n = 0;
const key = (name: string) => `${name}-${Date.now()}-${++n}`;

/** The ways a plan starts a child run of one demo.counter step. */
const CHILD_STEPS = {
  'agent.dispatch': (k: string) => ({
    id: 'child',
    action: 'agent.dispatch',
    parameters: { plan: { steps: [{ id: 'c1', action: 'demo.counter', parameters: { key: k } }] } },
    dependencies: ['ask'],
  }),
  'a sub-plan step': (k: string) => ({
    id: 'child',
    action: 'demo.echo',
    subplan: { steps: [{ id: 'c1', action: 'demo.counter', parameters: { key: k } }] },
    dependencies: ['ask'],
  }),
};

/**
 * A parent waiting on a question before its child step, so the test can reach into its instance
 * first: `create` on the child's object is made to hang (never answers: the process dies while the
 * call is out), after the real call when `afterCreate` — and then the child's report to the parent
 * fails, so the parent has not heard of the child when the process dies, however fast the child ran.
 * The env object is the Worker's too, so only those two calls are touched, and only until `restore()`.
 */
async function parentAboutToStartChild(kind: keyof typeof CHILD_STEPS, k: string, afterCreate: boolean) {
  const runId = await startRun({
    steps: [{ id: 'ask', action: 'human.input', parameters: { prompt: 'Go?' } }, CHILD_STEPS[kind](k)],
  });
  const childId = await childRunId({ run_id: runId, step_id: 'child', attempt: 1 });
  await waitForRun(runId, (r) => r.status === 'awaiting_input');
  let restore = () => undefined as void;
  await runInDurableObject(env.PLAN_RUN.getByName(runId), (instance) => {
    const own = (instance as unknown as { env: Env }).env;
    const real = own.PLAN_RUN;
    const hangingChild = {
      create: async (req: Parameters<DurableObjectStub<PlanRun>['create']>[0]) => {
        if (afterCreate) await real.getByName(childId).create(req);
        return new Promise(() => undefined);
      },
    };
    const unreachableParent = (parent: DurableObjectStub<PlanRun>) =>
      new Proxy(parent, {
        get: (stub, prop) =>
          prop === 'completeSteps'
            ? () => Promise.reject(new Error('the parent is out of reach (test)'))
            : (Reflect.get(stub, prop) as unknown),
      });
    own.PLAN_RUN = new Proxy(real, {
      get: (target, prop) =>
        prop === 'getByName'
          ? (name: string) =>
              name === childId
                ? hangingChild
                : afterCreate && name === runId
                  ? unreachableParent(target.getByName(name))
                  : target.getByName(name)
          : (Reflect.get(target, prop) as unknown),
    });
    restore = () => void (own.PLAN_RUN = real);
  });
  return { runId, childId, restore };
}

const children = async (runId: string) => {
  const page = await api('GET', `/v1/runs?limit=200&parent_run_id=${runId}`);
  expect(page.status).toBe(200);
  return (page.body.runs as Json[]).map((r) => r.run_id as string);
};

/**
 * The parent completed with exactly one child, `childId`, whose parent fields are right and whose
 * demo.counter `k` ran once; the parent recorded one successful return of its first attempt.
 */
async function expectOneChildRun(runId: string, childId: string, k: string) {
  const run = await waitForRun(runId);
  expect(run.status).toBe('completed');
  expect(run.step_results.child.run_id).toBe(childId);
  expect(await children(runId)).toEqual([childId]);
  expect((await api('GET', `/v1/runs/${childId}`)).body).toMatchObject({
    status: 'completed',
    parent_run_id: runId,
    parent_step_id: 'child',
  });
  expect(await readDemoCounter(env, k)).toBe(1);
  const returned = (await events(runId)).filter(
    (e) => e.event_type === 'ToolReturned' && e.payload.step_id === 'child',
  );
  expect(returned.map((e) => [e.payload.attempt, e.payload.success])).toEqual([[1, true]]);
}

describe('a child run across a crash of its parent', () => {
  for (const kind of Object.keys(CHILD_STEPS) as (keyof typeof CHILD_STEPS)[]) {
    it(`starts the child of ${kind} lost before the child existed, once, without waiting an hour`, async () => {
      const k = key('before-create');
      const { runId, childId, restore } = await parentAboutToStartChild(kind, k, false);
      try {
        expect((await api('POST', `/v1/runs/${runId}/input`, { input: 'go' })).status).toBe(200);
        await vi.waitFor(async () =>
          expect(
            (await events(runId)).some(
              (e) => e.event_type === 'ToolInvoked' && e.payload.step_id === 'child',
            ),
          ).toBe(true),
        );
        await abortAllDurableObjects();
      } finally {
        restore();
      }
      // The crash came before the child's object was created.
      expect((await api('GET', `/v1/runs/${childId}`)).status).toBe(404);
      // A stub from before the abort is broken with it.
      expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId))).toBe(true);
      await expectOneChildRun(runId, childId, k);
    });
  }

  it('finds the child it created before the crash instead of starting a second one', async () => {
    const k = key('after-create');
    const { runId, childId, restore } = await parentAboutToStartChild('agent.dispatch', k, true);
    try {
      expect((await api('POST', `/v1/runs/${runId}/input`, { input: 'go' })).status).toBe(200);
      // The child exists and ran its step; its parent never heard that it does.
      await vi.waitFor(async () => expect(await readDemoCounter(env, k)).toBe(1));
      await abortAllDurableObjects();
    } finally {
      restore();
    }
    // A stub from before the abort is broken with it.
    expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId))).toBe(true);
    // The child may have lost its own instance mid-step too: its alarm carries it on.
    await runDurableObjectAlarm(env.PLAN_RUN.getByName(childId));
    await expectOneChildRun(runId, childId, k);
  });

  it('starts no second child when an evicted parent waiting on its child is loaded again', async () => {
    const k = key('evicted-wait');
    const runId = await startRun({
      steps: [
        {
          id: 'child',
          action: 'agent.dispatch',
          parameters: {
            plan: {
              steps: [
                { id: 'ask', action: 'human.input', parameters: { prompt: 'Child go?' } },
                { id: 'c1', action: 'demo.counter', parameters: { key: k }, dependencies: ['ask'] },
              ],
            },
          },
        },
      ],
    });
    const childId = await childRunId({ run_id: runId, step_id: 'child', attempt: 1 });
    await waitForRun(childId, (r) => r.status === 'awaiting_input');
    await abortAllDurableObjects();
    // The parent wakes (its alarm) while its child still waits: it finds the same child.
    await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId));
    await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId));
    expect((await api('GET', `/v1/runs/${runId}`)).body.status).toBe('running');
    expect((await api('POST', `/v1/runs/${childId}/input`, { input: 'go' })).status).toBe(200);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(await children(runId)).toEqual([childId]);
    expect(await readDemoCounter(env, k)).toBe(1);
    const asked = (await events(childId)).filter((e) => e.event_type === 'InputRequested');
    expect(asked).toHaveLength(1);
  });
});
