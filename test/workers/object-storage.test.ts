/**
 * What a run's object keeps in its own storage beyond the run's rows: nothing for an id no run has,
 * and no alarm once nothing is due.
 */
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, startRun, waitForRun } from './helpers';

const tablesOf = (id: string) =>
  runInDurableObject(env.PLAN_RUN.getByName(id), (_instance, state) =>
    state.storage.sql
      .exec<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'",
      )
      .toArray()
      .map((r) => r.name)
      .sort(),
  );

describe('a run object’s storage', () => {
  it('is left empty by reads of an id no run has', async () => {
    const id = 'run_nobodyhome0000000000000000000';
    for (const path of ['', '/status', '/events', '/state', '/plans', '/plans/1', '/plans/1/diff/2']) {
      const res = await api('GET', `/v1/runs/${id}${path}`);
      expect(res.status, path).toBe(404);
      // No run, said so: not "has no plan version 1", as if there were one.
      expect(res.body.error.message, path).toBe(`No run "${id}"`);
    }
    expect(await tablesOf(id)).toEqual([]);
  });

  it('holds the tables every run writes, and none that it never wrote', async () => {
    const runId = await startRun({ steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] });
    await waitForRun(runId);
    // Leases, side work and state variables are created with their first row (lazy-table.ts).
    expect(await tablesOf(runId)).toEqual(
      ['attempts', 'blobs', 'events', 'meta', 'outputs', 'plans', 'steps'].sort(),
    );
  });

  it('creates the leases table with the first step sent to the queue', async () => {
    const runId = await startRun(
      { steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] },
      { execution_mode: 'parallel', placement: 'queue' },
    );
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(await tablesOf(runId)).toContain('leases');
    expect(await tablesOf(runId)).not.toContain('side_work');
  });

  it('keeps no alarm once the run has ended', async () => {
    // The sleep runs in the object, which arms an alarm to re-run it if the instance is lost.
    const runId = await startRun(
      { steps: [{ id: 's', action: 'demo.sleep', parameters: { ms: 50 } }] },
      { execution_mode: 'parallel' },
    );
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId))).toBe(false);
  });

  it('keeps its alarm while a step runs in the object', async () => {
    const runId = await startRun(
      { steps: [{ id: 's', action: 'demo.sleep', parameters: { ms: 5_000 } }] },
      { execution_mode: 'parallel' },
    );
    const stub = env.PLAN_RUN.getByName(runId);
    const alarm = await runInDurableObject(stub, (_i, state) => state.storage.getAlarm());
    expect(alarm).not.toBeNull();
    await api('POST', `/v1/runs/${runId}/cancel`, {});
    const run = await waitForRun(runId);
    expect(run.status).toBe('cancelled');
    expect(await runInDurableObject(stub, (_i, state) => state.storage.getAlarm())).toBeNull();
  });
});
