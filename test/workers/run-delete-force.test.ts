/**
 * `DELETE /v1/runs/:id?force=true`: a run this release cannot read (`run_unreadable`) is deleted without
 * reading its state — its object's storage, D1 rows, KV copies and child runs — in the crash-safe order
 * of any deletion; without `force` it answers `run_unreadable` saying to add it. A run a newer release
 * wrote (`run_newer_format`) is never deleted, forced or not. Child runs are deleted side by side, and
 * one that cannot be deleted does not stop its siblings.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client';
import { childRunId } from '../../src/engine/child-run';
import { api, startRun, waitForRun } from './helpers';
import { breakInObject, d1Rows, echo, endedRun, listed, objectStorage } from './run-delete-helpers';

const client = createClient({
  baseUrl: 'http://edgeplan.test',
  fetch: (input, init) => exports.default.fetch(new Request(input, init)),
});

const sqlOf = <T>(id: string, fn: (sql: SqlStorage) => T) =>
  runInDurableObject(env.PLAN_RUN.getByName(id), (_i, state) => fn(state.storage.sql));

/** Gives the runs' step rows a shape this release cannot read (as another release might have written). */
async function makeUnreadable(...ids: string[]): Promise<void> {
  for (const id of ids)
    await sqlOf(id, (sql) => sql.exec('UPDATE steps SET runtime = ?', JSON.stringify({ status: 'paused' })));
  // Loaded again from storage by the next request.
  await abortAllDurableObjects();
}

/** The child run ids of a run, in the order its deletion goes through them (its attempts' rows). */
const childrenOf = async (id: string) => {
  const rows = await sqlOf(id, (sql) =>
    sql
      .exec<{ step_id: string; attempt: number }>(
        "SELECT step_id, attempt FROM attempts WHERE action IN ('agent.dispatch', 'plan.execute')",
      )
      .toArray(),
  );
  return Promise.all(rows.map((r) => childRunId({ run_id: id, step_id: r.step_id, attempt: r.attempt })));
};

/** A completed run with a child run (agent.dispatch) that has a child of its own. */
async function runWithDescendants(): Promise<{ id: string; childId: string; grandId: string }> {
  const grandchild = { goal: 'grandchild', steps: [echo('g')] };
  const child = {
    goal: 'child',
    steps: [echo('x'), { id: 'deeper', action: 'agent.dispatch', parameters: { plan: grandchild } }],
  };
  const id = await startRun({ steps: [{ id: 'c', action: 'agent.dispatch', parameters: { plan: child } }] });
  const run = await waitForRun(id);
  expect(run.status).toBe('completed');
  const childId = run.step_results.c.run_id as string;
  const grandId = (await api('GET', `/v1/runs/${childId}`)).body.step_results.deeper.run_id as string;
  return { id, childId, grandId };
}

const gone = async (id: string) => {
  expect((await api('GET', `/v1/runs/${id}`)).status).toBe(404);
  expect(await d1Rows(id)).toEqual({ runs: 0, versions: 0 });
  expect(await objectStorage(id)).toEqual({ tables: [], alarm: null });
};

describe('DELETE of a run this release cannot read', () => {
  it('without force: run_unreadable, saying to add ?force=true; nothing is changed', async () => {
    const id = await endedRun();
    await makeUnreadable(id);
    const res = await api('DELETE', `/v1/runs/${id}`);
    expect([res.status, res.body.error.code]).toEqual([500, 'run_unreadable']);
    expect(res.body.error.message).toContain('stored step a does not fit');
    expect(res.body.error.message).toContain(`DELETE /v1/runs/${id}?force=true`);
    expect(res.body.error.message).toContain(`edgeplan delete ${id} --force`);
    expect(await d1Rows(id)).toEqual({ runs: 1, versions: 1 });
    expect(await env.KV.get(`plan:${id}:v1`)).not.toBeNull();
    const rows = await sqlOf(id, (sql) =>
      sql.exec<{ runtime: string }>('SELECT runtime FROM steps').toArray(),
    );
    expect(rows.length).toBe(2);
    expect(new Set(rows.map((r) => r.runtime))).toEqual(new Set([JSON.stringify({ status: 'paused' })]));
  });

  it('with force: its object, D1 rows, KV copies and child runs (unreadable too) go, unread', async () => {
    const { id, childId, grandId } = await runWithDescendants();
    expect((await api('GET', `/v1/runs/${id}/plans/1`)).status).toBe(200);
    expect(await env.KV.get(`plan:${id}:v1`)).not.toBeNull();
    await makeUnreadable(id, childId);
    expect((await api('GET', `/v1/runs/${id}`)).body.error.code).toBe('run_unreadable');
    const deleted = await client.deleteRun(id, { force: true });
    expect(deleted).toEqual({ run_id: id, child_runs: [childId, grandId] });
    for (const run of [id, childId, grandId]) await gone(run);
    expect(await env.KV.get(`plan:${id}:v1`)).toBeNull();
    expect(await listed(id)).toBe(false);
    expect((await api('DELETE', `/v1/runs/${id}?force=true`)).status).toBe(404);
  });

  it('with force: a run one of whose rows is not JSON at all', async () => {
    const id = await endedRun();
    await sqlOf(id, (sql) => sql.exec("UPDATE meta SET value = '{\"run_id\": ' WHERE key = 'run'"));
    await abortAllDurableObjects();
    const plain = await api('DELETE', `/v1/runs/${id}`);
    expect([plain.status, plain.body.error.code]).toEqual([500, 'run_unreadable']);
    expect(plain.body.error.message).toContain('?force=true');
    expect((await api('DELETE', `/v1/runs/${id}?force=true`)).body).toEqual({ run_id: id, child_runs: [] });
    await gone(id);
    expect(await env.KV.get(`plan:${id}:v1`)).toBeNull();
  });

  it('a forced deletion a D1 outage interrupts: hidden at once, and finished by the object’s alarm', async () => {
    const id = await endedRun();
    await makeUnreadable(id);
    await breakInObject(id, 'DB');
    const first = await api('DELETE', `/v1/runs/${id}?force=true`);
    expect([first.status, first.body.error.code]).toEqual([503, 'deletion_pending']);
    expect((await api('GET', `/v1/runs/${id}`)).status).toBe(404);
    expect(await d1Rows(id)).toEqual({ runs: 1, versions: 1 });
    // The instance dies; its alarm finishes the deletion, the run still unread.
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(id))).toBe(true);
    await gone(id);
    expect(await env.KV.get(`plan:${id}:v1`)).toBeNull();
  });

  it('refuses a run a newer release wrote, with force too: 503 run_newer_format, untouched', async () => {
    const id = await endedRun();
    await sqlOf(id, (sql) =>
      sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('storage_format', '99')"),
    );
    await abortAllDurableObjects();
    for (const path of [`/v1/runs/${id}`, `/v1/runs/${id}?force=true`]) {
      const res = await api('DELETE', path);
      expect([path, res.status, res.body.error.code]).toEqual([path, 503, 'run_newer_format']);
      expect(res.headers.get('Retry-After')).toBe('300');
      expect(res.body.error.message).toContain('not even with ?force=true');
    }
    expect(await d1Rows(id)).toEqual({ runs: 1, versions: 1 });
    expect((await objectStorage(id)).tables).toContain('steps');
  });

  it('force on a readable run is a plain DELETE: 409 while it runs, 200 once it ended', async () => {
    const id = await startRun(
      { steps: [{ id: 's', action: 'demo.sleep', parameters: { ms: 5_000 } }] },
      { execution_mode: 'parallel' },
    );
    await waitForRun(id, (r) => r.status === 'running');
    const refused = await api('DELETE', `/v1/runs/${id}?force=true`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'conflict', details: { reason: 'run_active' } });
    expect((await api('GET', `/v1/runs/${id}`)).body.status).toBe('running');
    await api('POST', `/v1/runs/${id}/cancel`, {});
    await waitForRun(id);
    expect((await api('DELETE', `/v1/runs/${id}?force=true`)).body).toEqual({ run_id: id, child_runs: [] });
    await gone(id);
  });

  it('answers 400 for a force that is not a yes or no', async () => {
    const res = await api('DELETE', '/v1/runs/run_neverexisted?force=maybe');
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_request']);
  });
});

describe('child runs of a deleted run', () => {
  it('are all tried, side by side: one that cannot be read holds up only itself, until forced', async () => {
    const steps = ['c1', 'c2', 'c3'].map((s) => ({
      id: s,
      action: 'agent.dispatch',
      parameters: { plan: { goal: s, steps: [echo('x')] } },
    }));
    const id = await startRun({ steps }, { execution_mode: 'parallel' });
    expect((await waitForRun(id)).status).toBe('completed');
    const children = await childrenOf(id);
    expect(children).toHaveLength(3);
    // The first the deletion goes to: deleted one after another, the others would never be reached.
    const [bad, ...good] = children as [string, ...string[]];
    await makeUnreadable(bad);
    const first = await api('DELETE', `/v1/runs/${id}`);
    expect([first.status, first.body.error.code]).toEqual([503, 'deletion_pending']);
    expect(first.body.error.message).toContain(`child run ${bad}`);
    expect(first.body.error.message).toContain('?force=true');
    for (const child of good) await gone(child);
    // The run itself left the list and D1 already: only its storage waits for the child.
    expect(await listed(id)).toBe(false);
    expect(await d1Rows(id)).toEqual({ runs: 0, versions: 0 });
    expect((await api('GET', `/v1/runs/${id}/plans/1`)).status).toBe(404);
    expect((await api('GET', `/v1/runs/${bad}`)).body.error.code).toBe('run_unreadable');
    // Asked again with force: the deletion noted before finishes, forcing the unreadable child.
    const forced = await api('DELETE', `/v1/runs/${id}?force=true`);
    expect(forced.body).toEqual({ run_id: id, child_runs: [bad] });
    for (const run of [id, bad]) await gone(run);
  });
});
