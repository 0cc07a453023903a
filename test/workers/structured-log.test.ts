/**
 * The Worker's log lines are JSON objects with stable fields (src/log.ts, docs/operating.md), so an
 * operator can search Workers Logs by `event` and `run_id`: checked on real error paths of the real
 * Worker — a run-list row it cannot read, a dead-lettered step message, and requests a run's stored
 * rows refuse (a newer release's format, a row that does not fit), whose lines carry the run's id as
 * well as the request, so filtering on `run_id` finds them.
 */
import {
  abortAllDurableObjects,
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  runInDurableObject,
} from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEAD_LETTER_QUEUE } from '../../src/durable/dead-letter-consumer';
import type { StepMessage } from '../../src/durable/messages';
import { FORMAT_KEY, STORAGE_FORMAT } from '../../src/durable/storage-format';
import worker from '../../src/worker';
import { api, startRun, waitForRun, type Json } from './helpers';

afterEach(() => vi.restoreAllMocks());

const inObject = (runId: string, fn: (sql: SqlStorage) => unknown) =>
  runInDurableObject(env.PLAN_RUN.getByName(runId), (_i, state) => void fn(state.storage.sql));

async function awaitingApproval(): Promise<string> {
  const runId = await startRun(
    { steps: [{ id: 'a', action: 'demo.echo', parameters: { msg: 'hi' } }] },
    { require_plan_approval: true },
  );
  await waitForRun(runId, (r) => r.status === 'awaiting_approval');
  return runId;
}

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
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
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
    expect(lines(errors).filter((l) => l.run_id === runId)).toEqual([
      {
        level: 'error',
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

  it('logs a request refused for its run’s newer storage format as run_newer_format, with the run and the request', async () => {
    const runId = await awaitingApproval();
    await inObject(runId, (sql) =>
      sql.exec('UPDATE meta SET value = ? WHERE key = ?', String(STORAGE_FORMAT + 1), FORMAT_KEY),
    );
    await abortAllDurableObjects();
    const warnings = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const res = await api('GET', `/v1/runs/${runId}/status`);
    expect(res.status).toBe(503);
    expect(lines(warnings).filter((l) => l.event === 'run_newer_format')).toEqual([
      {
        level: 'warn',
        event: 'run_newer_format',
        message: expect.stringContaining(runId),
        run_id: runId,
        method: 'GET',
        path: `/v1/runs/${runId}/status`,
        code: 'run_newer_format',
      },
    ]);
  });

  it('logs a request its run’s unreadable rows refuse as unhandled_error run_unreadable, with the run and the request', async () => {
    const runId = await awaitingApproval();
    await inObject(runId, (sql) =>
      sql.exec("UPDATE steps SET runtime = ? WHERE step_id = 'a'", JSON.stringify({ status: 'paused' })),
    );
    await abortAllDurableObjects();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const res = await api('GET', `/v1/runs/${runId}`);
    expect(res.status).toBe(500);
    expect(lines(errors).filter((l) => l.event === 'unhandled_error')).toEqual([
      {
        level: 'error',
        event: 'unhandled_error',
        message: expect.stringContaining('run_unreadable'),
        run_id: runId,
        method: 'GET',
        path: `/v1/runs/${runId}`,
        code: 'run_unreadable',
        error: {
          name: 'Error',
          message: expect.stringContaining('stored step a'),
          stack: expect.any(String),
        },
      },
    ]);
  });
});
