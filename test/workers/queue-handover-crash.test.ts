/**
 * A deferred attempt on the steps queue — a child run (`agent.dispatch`, a sub-plan step) or a
 * question (`human.input`) — whose consumer died after the attempt was recorded (ToolInvoked) and
 * before it handed over (the child started, the question recorded). Its lease must bring it back:
 * sent again with the same attempt, exactly one child (its parent fields right), one question, and the
 * run completes — not left waiting for the tool's own limit (an hour, a day). One that did hand over is
 * not sent again while it waits.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { runObject } from '../../src/durable/run-object';
import { childRunId } from '../../src/engine/child-run';
import type { PlanRun } from '../../src/durable/plan-run';
import { readDemoCounter } from '../../src/executor/tools/demo-counters-client';
import { api, events, startRun, waitForRun, type Json } from './helpers';

let n = 0;
const key = (name: string) => `${name}-${Date.now()}-${++n}`;

/** The deferred steps, each after `a`, so a consumer can take them back as continuations. */
const DEFERRED = {
  'agent.dispatch': (k: string) => ({
    id: 'd',
    action: 'agent.dispatch',
    parameters: { plan: { steps: [{ id: 'c1', action: 'demo.counter', parameters: { key: k } }] } },
    dependencies: ['a'],
  }),
  'a sub-plan step': (k: string) => ({
    id: 'd',
    action: 'demo.echo',
    subplan: { steps: [{ id: 'c1', action: 'demo.counter', parameters: { key: k } }] },
    dependencies: ['a'],
  }),
  'human.input': () => ({
    id: 'd',
    action: 'human.input',
    parameters: { prompt: 'Which city?' },
    dependencies: ['a'],
  }),
};

/**
 * A run of `a` then the deferred step `d` on the queue, leases shortened to 300 ms. A consumer reports
 * a's result and takes d back as a continuation — which begins it (ToolInvoked) — then dies before
 * running it: d never handed over.
 */
async function loseDeferred(kind: keyof typeof DEFERRED, k: string) {
  const runId = await startRun(
    {
      steps: [{ id: 'a', action: 'demo.sleep', parameters: { ms: 400, value: 'a' } }, DEFERRED[kind](k)],
    },
    { execution_mode: 'parallel', placement: 'queue' },
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
  expect(taken).toMatchObject({ step_id: 'd', attempt: 1 });
  return runId;
}

const invokedOf = async (runId: string, stepId: string) =>
  (await events(runId))
    .filter((e) => e.event_type === 'ToolInvoked' && e.payload.step_id === stepId)
    .map((e) => e.payload.attempt as number);

describe('a deferred queue attempt whose consumer died before it handed over', () => {
  for (const kind of ['agent.dispatch', 'a sub-plan step'] as const) {
    it(`is sent again: ${kind} starts exactly one child, and the run completes`, async () => {
      const k = key(`lost-${kind.replace(/\W/g, '')}`);
      const runId = await loseDeferred(kind, k);
      const childId = await childRunId({ run_id: runId, step_id: 'd', attempt: 1 });
      const run = await waitForRun(runId);
      expect(run.status).toBe('completed');
      expect(run.step_results.d.run_id).toBe(childId);
      const page = await api('GET', `/v1/runs?limit=200&parent_run_id=${runId}`);
      expect((page.body.runs as Json[]).map((r) => r.run_id)).toEqual([childId]);
      expect((await api('GET', `/v1/runs/${childId}`)).body).toMatchObject({
        status: 'completed',
        parent_run_id: runId,
        parent_step_id: 'd',
      });
      expect(await readDemoCounter(env, k)).toBe(1);
      // The same attempt, begun once: sent again, not retried as a new one.
      expect(await invokedOf(runId, 'd')).toEqual([1]);
    });
  }

  it('is sent again: human.input asks its question once, and the answer completes the run', async () => {
    const runId = await loseDeferred('human.input', '');
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    expect((await api('POST', `/v1/runs/${runId}/input`, { input: 'Berlin', step_id: 'd' })).status).toBe(
      200,
    );
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.d).toBe('Berlin');
    const asked = (await events(runId)).filter((e) => e.event_type === 'InputRequested');
    expect(asked.map((e) => [e.payload.step_id, e.payload.prompt])).toEqual([['d', 'Which city?']]);
    expect(await invokedOf(runId, 'd')).toEqual([1]);
  });
});

describe('a deferred queue attempt that handed over', () => {
  it('is held until its deadline, not sent again each time its lease would run out', async () => {
    const runId = await startRun(
      { steps: [{ id: 'd', action: 'human.input', parameters: { prompt: 'Go?' } }] },
      { execution_mode: 'parallel', placement: 'queue' },
    );
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    const deadline = (await events(runId)).find((e) => e.event_type === 'ToolInvoked')!.payload
      .deadline_at as number;
    const stub = env.PLAN_RUN.getByName(runId);
    await vi.waitFor(async () =>
      expect(await runInDurableObject(stub, (i: PlanRun) => i.leases.nextExpiry())).toBe(deadline),
    );
    expect((await api('POST', `/v1/runs/${runId}/input`, { input: 'yes', step_id: 'd' })).status).toBe(200);
    expect((await waitForRun(runId)).status).toBe('completed');
    expect(await runInDurableObject(stub, (i: PlanRun) => i.leases.nextExpiry())).toBeNull();
  });

  it('is held until its deadline when it started a child run (a sub-plan step), which it waits on', async () => {
    const runId = await startRun(
      {
        steps: [
          {
            id: 'd',
            action: 'demo.echo',
            subplan: { steps: [{ id: 'ask', action: 'human.input', parameters: { prompt: 'Child go?' } }] },
          },
        ],
      },
      { execution_mode: 'parallel', placement: 'queue' },
    );
    const childId = await childRunId({ run_id: runId, step_id: 'd', attempt: 1 });
    await waitForRun(childId, (r) => r.status === 'awaiting_input');
    const deadline = (await events(runId)).find((e) => e.event_type === 'ToolInvoked')!.payload
      .deadline_at as number;
    const stub = env.PLAN_RUN.getByName(runId);
    await vi.waitFor(async () =>
      expect(await runInDurableObject(stub, (i: PlanRun) => i.leases.nextExpiry())).toBe(deadline),
    );
    expect((await api('POST', `/v1/runs/${childId}/input`, { input: 'go' })).status).toBe(200);
    expect((await waitForRun(runId)).status).toBe('completed');
    expect(await invokedOf(runId, 'd')).toEqual([1]);
  });
});
