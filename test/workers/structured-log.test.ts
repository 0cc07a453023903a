/**
 * The Worker's log lines are JSON objects with stable fields (src/log.ts, docs/operating.md), so an
 * operator can search Workers Logs by `event` and `run_id`: checked on real error paths of the real
 * Worker — a run-list row it cannot read, and a dead-lettered step message.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEAD_LETTER_QUEUE } from '../../src/durable/dead-letter-consumer';
import type { StepMessage } from '../../src/durable/messages';
import worker from '../../src/worker';
import { api, startRun, waitForRun, type Json } from './helpers';

afterEach(() => vi.restoreAllMocks());

/** The JSON lines written to `method` so far, each parsed (a line that is not JSON fails the test). */
function lines(spy: { mock: { calls: unknown[][] } }): Json[] {
  return spy.mock.calls.map((args) => {
    expect(args).toHaveLength(1);
    return JSON.parse(String(args[0])) as Json;
  });
}

describe('the structured log', () => {
  it('logs a run-list row it cannot read as run_index_row_unreadable, with the run and the error', async () => {
    const runId = `run_unreadable_${crypto.randomUUID().replaceAll('-', '')}`;
    await env.DB.prepare(
      `INSERT INTO runs (run_id, status, goal, plan_id, plan_version, step_count, created_at, updated_at)
       VALUES (?, 'paused', 'g', null, null, 0, '2999-06-01T00:00:00.000Z', '2999-06-01T00:00:00.000Z')`,
    )
      .bind(runId)
      .run();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const listed = await api('GET', '/v1/runs?limit=5');
    expect(listed.status).toBe(200);
    const line = lines(errors).find((l) => l.run_id === runId);
    expect(line).toMatchObject({
      level: 'error',
      event: 'run_index_row_unreadable',
      message: expect.stringContaining(runId),
      run_id: runId,
      error: {
        name: expect.any(String),
        message: expect.stringContaining('status'),
        stack: expect.any(String),
      },
    });
    await env.DB.prepare('DELETE FROM runs WHERE run_id = ?').bind(runId).run();
  });

  it('logs dead-lettered attempts as dead_letters_failed, with the run, the step and the attempt', async () => {
    const runId = await startRun(
      { steps: [{ id: 'slow', action: 'demo.sleep', parameters: { ms: 1500, value: 'late' } }] },
      { execution_mode: 'parallel' },
    );
    await waitForRun(runId, (r) => r.step_statuses.slow === 'running');
    const warnings = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const batch = createMessageBatch<StepMessage>(DEAD_LETTER_QUEUE, [
      {
        id: 'd0',
        timestamp: new Date(),
        attempts: 1,
        body: { run_id: runId, step_id: 'slow', attempt: 1, plan_version: 1 },
      },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(['d0']);
    expect(lines(warnings).filter((l) => l.run_id === runId)).toEqual([
      {
        level: 'warn',
        event: 'dead_letters_failed',
        message: expect.stringContaining(runId),
        run_id: runId,
        step_id: 'slow',
        attempt: 1,
        count: 1,
      },
    ]);
    expect((await waitForRun(runId)).status).toBe('failed');
  });
});
