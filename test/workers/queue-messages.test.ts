/**
 * What the queue consumers take: a message that is not a step message {run_id, step_id, attempt,
 * plan_version} — from an older or newer release, or anyone holding the queue's binding — is
 * acknowledged and logged once with why, not retried for ever, and the batch's other messages are
 * carried out as if it were not there.
 */
import {
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  runInDurableObject,
} from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { DEAD_LETTER_QUEUE } from '../../src/durable/dead-letter-consumer';
import type { PlanRun } from '../../src/durable/plan-run';
import { consumeSteps } from '../../src/durable/step-consumer';
import { readDemoCounter } from '../../src/executor/tools/demo-counters-client';
import worker from '../../src/worker';
import { events, startRun, waitForRun } from './helpers';

const unconsumed = (env as unknown as { STEPS_UNCONSUMED: Queue }).STEPS_UNCONSUMED;

/** Bodies no consumer can act on, by message id, with the field the log must name. */
const unfit = (runId: string): [string, unknown, string][] => [
  ['null', null, '(root)'],
  ['text', 'run this', '(root)'],
  ['empty', {}, 'run_id'],
  ['attempt-text', { run_id: runId, step_id: 'b', attempt: '1', plan_version: 1 }, 'attempt'],
  ['attempt-zero', { run_id: runId, step_id: 'b', attempt: 0, plan_version: 1 }, 'attempt'],
  ['attempt-fraction', { run_id: runId, step_id: 'b', attempt: 1.5, plan_version: 1 }, 'attempt'],
  ['not-a-run', { run_id: 'b', step_id: 'b', attempt: 1, plan_version: 1 }, 'run_id'],
  ['proto-step', { run_id: runId, step_id: '__proto__', attempt: 1, plan_version: 1 }, 'step_id'],
  ['no-version', { run_id: runId, step_id: 'b', attempt: 1 }, 'plan_version'],
];

const batchOf = (queue: string, bodies: readonly (readonly [string, unknown, ...unknown[]])[]) =>
  createMessageBatch<unknown>(
    queue,
    bodies.map(([id, body]) => ({ id, timestamp: new Date(), attempts: 1, body })),
  );

/** The error lines logged about message `id`. */
const linesAbout = (logged: { mock: { calls: unknown[][] } }, id: string) =>
  logged.mock.calls.map((c) => c.map(String).join(' ')).filter((l) => l.includes(`message ${id} `));

describe('messages that are not step messages', () => {
  it('are acknowledged and logged once by the steps consumer, and the good message beside them runs', async () => {
    const logged = vi.spyOn(console, 'error');
    const k = `queue-messages-${crypto.randomUUID()}`;
    const runId = await startRun(
      {
        steps: [
          // In the object (a timer): the queue is swapped before b is sent.
          { id: 'a', action: 'demo.sleep', parameters: { ms: 200, value: 'a' } },
          { id: 'b', action: 'demo.counter', parameters: { key: k }, dependencies: ['a'] },
        ],
      },
      { execution_mode: 'parallel' },
    );
    await runInDurableObject(env.PLAN_RUN.getByName(runId), (instance: PlanRun) => {
      // b's message goes to a queue nothing consumes, and the object waits for a consumer to take it.
      instance.leases.queuedMs = 60_000;
      Object.defineProperty(instance, 'env', { value: { ...env, STEPS: unconsumed } });
    });
    await waitForRun(runId, (r) => r.step_statuses.b === 'running');
    const bad = unfit(runId);
    const good = { run_id: runId, step_id: 'b', attempt: 1, plan_version: 1 };
    const batch = batchOf('steps', [...bad.slice(0, 4), ['good', good], ...bad.slice(4)]);
    const ctx = createExecutionContext();
    await consumeSteps(batch, env);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual([...bad.map(([id]) => id), 'good'].sort());
    expect(result.retryMessages).toEqual([]);

    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.b).toEqual({ key: k, value: 1 });
    expect(await readDemoCounter(env, k)).toBe(1);
    for (const [id, , field] of bad) {
      const lines = linesAbout(logged, id);
      expect(lines, id).toHaveLength(1);
      expect(lines[0], id).toContain('steps consumer');
      expect(lines[0], id).toContain(`${field}:`);
    }
    expect(linesAbout(logged, 'good')).toEqual([]);
    logged.mockRestore();
  });

  it('are acknowledged and logged once by the dead-letter consumer, which still fails the good one’s attempt', async () => {
    const logged = vi.spyOn(console, 'error');
    const runId = await startRun(
      { steps: [{ id: 'b', action: 'demo.sleep', parameters: { ms: 1500, value: 'late' } }] },
      { execution_mode: 'parallel' },
    );
    await waitForRun(runId, (r) => r.step_statuses.b === 'running');
    const bad = unfit(runId);
    const good = { run_id: runId, step_id: 'b', attempt: 1, plan_version: 1 };
    const batch = batchOf(DEAD_LETTER_QUEUE, [['good', good], ...bad]);
    const ctx = createExecutionContext();
    // Through the Worker's queue handler, as the queue delivers it.
    await worker.queue(batch, env);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(['good', ...bad.map(([id]) => id)].sort());
    expect(result.retryMessages).toEqual([]);

    const run = await waitForRun(runId);
    expect(run.status).toBe('failed');
    const returned = (await events(runId)).filter(
      (e) => e.event_type === 'ToolReturned' && e.payload?.step_id === 'b',
    );
    expect(returned).toHaveLength(1);
    expect(JSON.stringify(returned[0])).toContain('dead_lettered');
    for (const [id, , field] of bad) {
      const lines = linesAbout(logged, id);
      expect(lines, id).toHaveLength(1);
      expect(lines[0], id).toContain('steps-dlq');
      expect(lines[0], id).toContain(`${field}:`);
    }
    logged.mockRestore();
  });
});
