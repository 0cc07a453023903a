/**
 * A run's rows beside its state — the parent a child run reports to, the approval link's record —
 * written by another release or by hand in a shape this one cannot read: each is refused or reported
 * the way its reader documents, never a 5xx of its own and never a retry that cannot succeed.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { childRunId } from '../../src/engine/child-run';
import { api, waitForRun, type Json } from './helpers';

afterEach(() => vi.restoreAllMocks());

const inObject = <T>(runId: string, fn: (sql: SqlStorage) => T) =>
  runInDurableObject(env.PLAN_RUN.getByName(runId), (_i, state) => fn(state.storage.sql));

const setMeta = (runId: string, key: string, value: string) =>
  inObject(runId, (sql) => void sql.exec('UPDATE meta SET value = ? WHERE key = ?', value, key));

/** The JSON log lines written to the spied console method so far. */
const lines = (spy: { mock: { calls: unknown[][] } }): Json[] =>
  spy.mock.calls.map((args) => JSON.parse(String(args[0])) as Json);

describe('a child run whose parent row is unreadable', () => {
  it('ends as it would, logs child_run_not_reported once and does not try again', async () => {
    const child = { steps: [{ id: 'x', action: 'demo.echo', parameters: { value: 1 } }] };
    const created = await api('POST', '/v1/runs', {
      plan: {
        steps: [
          {
            id: 'c',
            action: 'agent.dispatch',
            parameters: { plan: child, config: { require_plan_approval: true } },
          },
        ],
      },
    });
    expect(created.status).toBe(201);
    const parentId = created.body.run_id as string;
    const childId = await childRunId({ run_id: parentId, step_id: 'c', attempt: 1 });
    await waitForRun(childId, (r) => r.status === 'awaiting_approval');
    await setMeta(childId, 'parent', JSON.stringify({ run_id: parentId, step: 'c' }));
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const approved = await api('POST', `/v1/runs/${childId}/approval`, { decision: 'approve' });
    expect(approved.status).toBe(200);
    expect((await waitForRun(childId)).status).toBe('completed');
    await vi.waitFor(() =>
      expect(lines(errors).filter((l) => l.run_id === childId)).toEqual([
        expect.objectContaining({
          event: 'child_run_not_reported',
          error: expect.objectContaining({ message: expect.stringContaining('stored parent does not fit') }),
        }),
      ]),
    );
    // Its report is done with, not parked for another try.
    await vi.waitFor(async () =>
      expect(
        await inObject(childId, (sql) =>
          sql.exec("SELECT count(*) AS n FROM sqlite_master WHERE name = 'side_work'").one().n === 0
            ? 0
            : sql.exec("SELECT count(*) AS n FROM side_work WHERE task LIKE '%report_parent%'").one().n,
        ),
      ).toBe(0),
    );
    // The parent's step still waits (its deadline fails it); the parent can be cancelled meanwhile.
    expect((await api('GET', `/v1/runs/${parentId}`)).body.step_statuses.c).toBe('running');
    expect((await api('POST', `/v1/runs/${parentId}/cancel`)).status).toBe(200);
  });
});
