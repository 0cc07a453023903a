/**
 * A step still running when its run ends — cancelled, or failed by another step — is reported as
 * interrupted by the API (`GET /v1/runs/:id`, `/status?include_details=true`), so a client reading
 * the snapshot is not told the ended run is still running it; an outcome that comes later clears it.
 */
import { env } from 'cloudflare:workers';
import { vi, describe, expect, it } from 'vitest';
import { runObject } from '../../src/durable/run-object';
import { api, startRun, waitForRun, type Json } from './helpers';

/** Waits until the step's attempt has begun (ToolInvoked recorded). */
async function untilInvoked(runId: string, step: string): Promise<void> {
  await vi.waitFor(
    async () => expect((await runObject(env.PLAN_RUN, runId).attempts(step))[0]?.status).toBe('invoked'),
    {
      timeout: 10_000,
      interval: 10,
    },
  );
}

const subtask = (status: Json, id: string) => (status.subtasks as Json[]).find((s) => s.id === id)!;

describe('a step the run ends under', () => {
  it('is interrupted in the snapshot and the status of a cancelled run, until its late outcome completes it', async () => {
    const runId = await startRun(
      {
        steps: [
          {
            id: 'c',
            action: 'demo.counter',
            parameters: { key: `int-${crypto.randomUUID()}`, delay_ms: 1500 },
          },
          { id: 'd', action: 'demo.echo', parameters: {}, dependencies: ['c'] },
        ],
      },
      { execution_mode: 'parallel' },
    );
    await untilInvoked(runId, 'c');
    expect((await api('POST', `/v1/runs/${runId}/cancel`, { reason: 'stop' })).status).toBe(200);
    const run = (await api('GET', `/v1/runs/${runId}`)).body;
    expect(run.status).toBe('cancelled');
    expect(run.steps.c).toMatchObject({ status: 'running', interrupted: true });
    expect(run.steps.d).toMatchObject({ status: 'skipped', skip_reason: 'cancelled', interrupted: false });
    // Counted as interrupted, not running: a client summing the counts is not told "1 running".
    expect(run.counts).toEqual({
      total: 2,
      pending: 0,
      blocked: 0,
      running: 0,
      completed: 0,
      failed: 0,
      skipped: 1,
      interrupted: 1,
    });
    const status = (await api('GET', `/v1/runs/${runId}/status?include_details=true`)).body;
    expect(subtask(status, 'c')).toMatchObject({ status: 'in_progress', interrupted: true });
    expect(status.status).toMatchObject({ running: 0, in_progress: 0, interrupted: 1 });
    expect(subtask(status, 'd')).toMatchObject({ status: 'skipped', interrupted: false });
    // Its tool went on: once its outcome is recorded the step is completed, no longer interrupted.
    await vi.waitFor(
      async () => expect((await api('GET', `/v1/runs/${runId}`)).body.steps.c.status).toBe('completed'),
      { timeout: 10_000, interval: 50 },
    );
    const late = (await api('GET', `/v1/runs/${runId}`)).body;
    expect(late.steps.c.interrupted).toBe(false);
    expect(late.counts).toMatchObject({ running: 0, completed: 1, interrupted: 0 });
  });

  it('is interrupted in the snapshot of a run another step failed', async () => {
    const runId = await startRun(
      {
        steps: [
          { id: 'slow', action: 'demo.sleep', parameters: { ms: 3000, value: 1 } },
          {
            id: 'bad',
            action: 'demo.flaky',
            parameters: { fail_times: 9, key: `int-${crypto.randomUUID()}` },
          },
        ],
      },
      { execution_mode: 'parallel', retry_failed_steps: 0 },
    );
    const run = await waitForRun(runId, (r) => r.status === 'failed');
    expect(run.steps.bad).toMatchObject({ status: 'failed', interrupted: false });
    expect(run.steps.slow).toMatchObject({ status: 'running', interrupted: true });
    expect(run.counts).toMatchObject({ total: 2, running: 0, failed: 1, interrupted: 1 });
  });

  it('is not interrupted while the run still runs it', async () => {
    const runId = await startRun(
      { steps: [{ id: 'slow', action: 'demo.sleep', parameters: { ms: 1500, value: 1 } }] },
      { execution_mode: 'parallel' },
    );
    await untilInvoked(runId, 'slow');
    const run = (await api('GET', `/v1/runs/${runId}`)).body;
    expect(run.status).toBe('running');
    expect(run.steps.slow).toMatchObject({ status: 'running', interrupted: false });
    expect(run.counts).toMatchObject({ total: 1, running: 1, interrupted: 0 });
    await waitForRun(runId, (r) => r.status === 'completed');
  });
});
