/**
 * RUN_RETENTION_DAYS: an ended run keeps an alarm for `completed_at` + the retention and deletes itself
 * when it fires; unset, an ended run keeps no alarm at all. A retried run is not deleted by it.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { api, startRun, waitForRun } from './helpers';

const stubOf = (id: string) => env.PLAN_RUN.getByName(id);
const alarmOf = (id: string) => runInDurableObject(stubOf(id), (_i, state) => state.storage.getAlarm());

/** Sets RUN_RETENTION_DAYS for the run's object instance alone (a copy of its env). */
const retainFor = (id: string, days: string) =>
  runInDurableObject(stubOf(id), (instance) => {
    const own = instance as unknown as { env: Env };
    own.env = { ...own.env, RUN_RETENTION_DAYS: days };
  });

/** A run waiting for approval: it ends once approved, after its instance has been configured. */
async function awaitingApproval(steps: unknown[]): Promise<string> {
  const id = await startRun({ steps }, { require_plan_approval: true });
  await waitForRun(id, (r) => r.status === 'awaiting_approval');
  return id;
}
const approve = (id: string) => api('POST', `/v1/runs/${id}/approval`, { decision: 'approve' });
const echo = { id: 'a', action: 'demo.echo', parameters: { x: 1 } };

describe('RUN_RETENTION_DAYS', () => {
  it('unset: an ended run keeps no alarm', async () => {
    const id = await startRun({ steps: [echo] });
    await waitForRun(id);
    await vi.waitFor(async () => expect(await alarmOf(id)).toBeNull());
  });

  it('set: an ended run is deleted by its own alarm once it is that old, and not before', async () => {
    const id = await awaitingApproval([echo]);
    await retainFor(id, '1');
    await approve(id);
    const run = await waitForRun(id);
    const due = Date.parse(run.completed_at as string) + 86_400_000;
    await vi.waitFor(async () => expect(await alarmOf(id)).toBe(due));
    // Fired early (the alarm is never late, but may be early): the run stays, and so does the alarm.
    expect(await runDurableObjectAlarm(stubOf(id))).toBe(true);
    expect((await api('GET', `/v1/runs/${id}`)).status).toBe(200);
    expect(await alarmOf(id)).toBe(due);
    // A retention the run is past (under a millisecond): the alarm deletes it.
    await retainFor(id, '0.00000001');
    expect(await runDurableObjectAlarm(stubOf(id))).toBe(true);
    expect((await api('GET', `/v1/runs/${id}`)).status).toBe(404);
    const listed = await env.DB.prepare('SELECT count(*) AS n FROM runs WHERE run_id = ?')
      .bind(id)
      .first('n');
    expect(listed).toBe(0);
    expect(await alarmOf(id)).toBeNull();
    expect((await api('DELETE', `/v1/runs/${id}`)).status).toBe(404);
  });

  it('does not delete a run that was retried and is going again', async () => {
    const id = await awaitingApproval([
      { id: 'a', action: 'demo.flaky', parameters: { fail_times: 1, permanent: true } },
      { id: 'b', action: 'demo.sleep', parameters: { ms: 10_000 }, dependencies: ['a'] },
    ]);
    await retainFor(id, '0.00000001');
    await approve(id);
    expect((await waitForRun(id)).status).toBe('failed');
    await vi.waitFor(async () => expect(await alarmOf(id)).not.toBeNull());
    expect((await api('POST', `/v1/runs/${id}/retry`, {})).status).toBe(200);
    await waitForRun(id, (r) => r.step_statuses.b === 'running');
    await runDurableObjectAlarm(stubOf(id));
    expect((await api('GET', `/v1/runs/${id}`)).body.status).toBe('running');
    await api('POST', `/v1/runs/${id}/cancel`, {});
  });

  it('arms an ended run from before it was set when the run is next woken', async () => {
    const id = await startRun({ steps: [echo] });
    await waitForRun(id);
    await vi.waitFor(async () => expect(await alarmOf(id)).toBeNull());
    await abortAllDurableObjects();
    await retainFor(id, '2');
    expect((await api('GET', `/v1/runs/${id}`)).status).toBe(200);
    await vi.waitFor(async () => expect(await alarmOf(id)).not.toBeNull());
  });

  it('deletes nothing when the value is not a positive number of days', async () => {
    const id = await awaitingApproval([echo]);
    await retainFor(id, 'thirty');
    await approve(id);
    await waitForRun(id);
    await vi.waitFor(async () => expect(await alarmOf(id)).toBeNull());
    expect((await api('GET', `/v1/runs/${id}`)).status).toBe(200);
  });
});
