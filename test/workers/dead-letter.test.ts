/**
 * The `steps-dlq` consumer: a dead-lettered step message fails its attempt (`dead_lettered`, not
 * retried) instead of leaving the step to wait for its deadline; a late real result is ignored.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { consumeDeadLetters, DEAD_LETTER_QUEUE } from '../../src/durable/dead-letter-consumer';
import type { StepMessage } from '../../src/durable/messages';
import worker from '../../src/worker';
import { events, startRun, waitForRun } from './helpers';

const dlqBatch = (msgs: StepMessage[], queue = DEAD_LETTER_QUEUE) =>
  createMessageBatch<StepMessage>(
    queue,
    msgs.map((body, i) => ({ id: `d${i}`, timestamp: Date.now(), attempts: 1, body })),
  );

describe('the dead-letter consumer', () => {
  it('fails a dead-lettered attempt with dead_lettered, through the Worker queue handler', async () => {
    const runId = await startRun(
      {
        steps: [
          { id: 'slow', action: 'demo.sleep', parameters: { ms: 1500, value: 'late' } },
          { id: 'after', action: 'demo.echo', parameters: { x: 1 }, dependencies: ['slow'] },
        ],
      },
      { execution_mode: 'parallel', retry_failed_steps: 3 },
    );
    await waitForRun(runId, (r) => r.step_statuses.slow === 'running');
    const batch = dlqBatch([{ run_id: runId, step_id: 'slow', attempt: 1, plan_version: 1 }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(['d0']);

    const run = await waitForRun(runId);
    expect(run.status).toBe('failed');
    expect(run.step_statuses).toMatchObject({ slow: 'failed' });
    expect(run.step_statuses.after === 'completed').toBe(false);
    const returned = (await events(runId)).filter(
      (e) => e.event_type === 'ToolReturned' && e.payload?.step_id === 'slow',
    );
    // Not retried although the run allows retries: the queue already tried.
    expect(returned).toHaveLength(1);
    expect(JSON.stringify(returned[0])).toContain('dead_lettered');
    // The real result arriving later changes nothing.
    await new Promise((r) => setTimeout(r, 1800));
    expect((await waitForRun(runId)).step_statuses.slow).toBe('failed');
  });

  it('takes a team Worker’s own dead-letter queue (`<queue>-dlq`) as one, not as step messages', async () => {
    const runId = await startRun(
      {
        steps: [{ id: 'slow', action: 'demo.sleep', parameters: { ms: 1500, value: 'late' } }],
      },
      { execution_mode: 'parallel', retry_failed_steps: 3 },
    );
    await waitForRun(runId, (r) => r.step_statuses.slow === 'running');
    // examples/custom-worker's wrangler.toml names its queues after the Worker.
    const batch = dlqBatch(
      [{ run_id: runId, step_id: 'slow', attempt: 1, plan_version: 1 }],
      'custom-worker-steps-dlq',
    );
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(['d0']);
    const run = await waitForRun(runId);
    expect(run.status).toBe('failed');
    expect(JSON.stringify(run.steps.slow?.error)).toContain('dead_lettered');
  });

  it('leaves an attempt whose result is already recorded as it was, and acks', async () => {
    const runId = await startRun(
      { steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] },
      { execution_mode: 'parallel' },
    );
    expect((await waitForRun(runId)).status).toBe('completed');
    const batch = dlqBatch([{ run_id: runId, step_id: 'a', attempt: 1, plan_version: 1 }]);
    const ctx = createExecutionContext();
    await consumeDeadLetters(batch, env);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(['d0']);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.a).toEqual({ x: 1 });
  });

  it('retries the messages of a run it cannot reach', async () => {
    const unreachable = {
      ...env,
      PLAN_RUN: {
        getByName: () => ({ completeSteps: () => Promise.reject(new Error('object unreachable')) }),
      },
    } as unknown as Env;
    const batch = dlqBatch([{ run_id: 'run_gone', step_id: 'a', attempt: 2, plan_version: 1 }]);
    const ctx = createExecutionContext();
    await consumeDeadLetters(batch, unreachable);
    const result = await getQueueResult(batch, ctx);
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(['d0']);
    expect(result.explicitAcks).toEqual([]);
  });
});
