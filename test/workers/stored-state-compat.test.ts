/**
 * A run's object whose rows another release wrote: an earlier release's layout is read as it is and
 * the run carries on; a row this release cannot read is a `run_unreadable` error naming the row and
 * what to do, not an anonymous `internal`, and the row is left as it was. A plan version cached in KV
 * that is not a plan is read past.
 */
import { abortAllDurableObjects, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { api, startRun, waitForRun } from './helpers';

const inObject = <T>(runId: string, fn: (sql: SqlStorage) => T) =>
  runInDurableObject(env.PLAN_RUN.getByName(runId), (_i, state) => fn(state.storage.sql));

/** A run holding for approval, so nothing writes its rows while a test rewrites them. */
async function awaitingApproval(key: string): Promise<string> {
  const runId = await startRun(
    { steps: [{ id: 'a', action: 'demo.counter', parameters: { key } }] },
    { require_plan_approval: true },
  );
  await waitForRun(runId, (r) => r.status === 'awaiting_approval');
  return runId;
}

describe('a run written by another release', () => {
  it('is read in the layout the 2026-11-24 release stored, and carries on', async () => {
    const runId = await awaitingApproval('compat-old-layout');
    await inObject(runId, (sql) => {
      // That release: the steps table with row ids, every table created up front (empty), and the
      // last event's seq kept in the run's meta row.
      const steps = sql.exec<{ step_id: string; runtime: string }>('SELECT * FROM steps').toArray();
      sql.exec('DROP TABLE steps');
      sql.exec('CREATE TABLE steps (step_id TEXT PRIMARY KEY, runtime TEXT NOT NULL)');
      for (const s of steps) sql.exec('INSERT INTO steps VALUES (?, ?)', s.step_id, s.runtime);
      sql.exec(`CREATE TABLE IF NOT EXISTS side_work (
        id TEXT PRIMARY KEY, task TEXT NOT NULL, token TEXT NOT NULL,
        issued INTEGER NOT NULL, due_at INTEGER NOT NULL, parked INTEGER NOT NULL DEFAULT 0)`);
      sql.exec(`CREATE TABLE IF NOT EXISTS leases (
        step_id TEXT PRIMARY KEY, attempt INTEGER NOT NULL, until INTEGER NOT NULL, begun INTEGER NOT NULL)`);
      sql.exec('CREATE TABLE IF NOT EXISTS vars (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
      const seq = sql.exec<{ n: number }>('SELECT max(seq) AS n FROM events').one().n;
      const meta = sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'run'").one();
      const run = { ...(JSON.parse(meta.value) as Record<string, unknown>), seq };
      sql.exec("UPDATE meta SET value = ? WHERE key = 'run'", JSON.stringify(run));
    });
    await abortAllDurableObjects();
    expect((await api('GET', `/v1/runs/${runId}`)).body.status).toBe('awaiting_approval');
    const approved = await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' });
    expect(approved.status).toBe(200);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results).toEqual({ a: { key: 'compat-old-layout', value: 1 } });
    const events = (await api('GET', `/v1/runs/${runId}/events?limit=1000`)).body.events as {
      seq: number;
    }[];
    expect(events.map((e) => e.seq)).toEqual(events.map((_e, i) => i + 1));
  });

  it('answers run_unreadable naming the row and what to do when a step’s row does not fit', async () => {
    const runId = await awaitingApproval('compat-bad-step');
    const bad = JSON.stringify({ status: 'paused' });
    await inObject(runId, (sql) => sql.exec("UPDATE steps SET runtime = ? WHERE step_id = 'a'", bad));
    await abortAllDurableObjects();
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['GET', '/status', undefined],
      ['GET', '/events', undefined],
      ['POST', '/approval', { decision: 'approve' }],
    ] as const) {
      const res = await api(method, `/v1/runs/${runId}${path}`, body);
      expect(res.status, path).toBe(500);
      const error = res.body.error as { code: string; message: string };
      expect(error.code, path).toBe('run_unreadable');
      expect(error.message).toContain('stored step a does not fit');
      expect(error.message).toContain('status');
      expect(error.message).toContain('Report it with the run id');
    }
    // Nothing was written over it, so the release that wrote it can still serve the run.
    const rows = await inObject(runId, (sql) =>
      sql.exec<{ runtime: string }>("SELECT runtime FROM steps WHERE step_id = 'a'").toArray(),
    );
    expect(rows).toEqual([{ runtime: bad }]);
  });

  it('answers run_unreadable naming the run config when its stored config does not fit', async () => {
    const runId = await awaitingApproval('compat-bad-config');
    await inObject(runId, (sql) => {
      const meta = sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'run'").one();
      const run = JSON.parse(meta.value) as { config: Record<string, unknown> };
      run.config.execution_mode = 'speculative';
      sql.exec("UPDATE meta SET value = ? WHERE key = 'run'", JSON.stringify(run));
    });
    await abortAllDurableObjects();
    const res = await api('GET', `/v1/runs/${runId}`);
    expect(res.status).toBe(500);
    const error = res.body.error as { code: string; message: string };
    expect(error.code).toBe('run_unreadable');
    expect(error.message).toContain('stored run config does not fit');
    expect(error.message).toContain('execution_mode');
  });

  it('answers run_unreadable, not internal, when a row is not JSON at all', async () => {
    const runId = await awaitingApproval('compat-not-json');
    await inObject(runId, (sql) =>
      sql.exec("UPDATE steps SET runtime = '{\"status\": \"comp' WHERE step_id = 'a'"),
    );
    await abortAllDurableObjects();
    const res = await api('GET', `/v1/runs/${runId}`);
    expect(res.status).toBe(500);
    const error = res.body.error as { code: string; message: string };
    expect(error.code).toBe('run_unreadable');
    expect(error.message).toContain('is not JSON');
    expect(error.message).toContain('Report it with the run id');
  });

  for (const [what, stored, says] of [
    ['a chunk reference cut short', '{"$blob":"b1', 'stored value reference is not JSON'],
    [
      'a chunk reference that does not fit',
      '{"$blob":"b1","extra":1}',
      'stored value reference does not fit',
    ],
    ['a reference to chunks that are gone', '{"$blob":"b99"}', 'stored value b99 (0 chunks) is not JSON'],
  ] as const) {
    it(`answers run_unreadable naming the value when a step's output holds ${what}`, async () => {
      const runId = await startRun({ steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }] });
      expect((await waitForRun(runId)).status).toBe('completed');
      await inObject(runId, (sql) => sql.exec("UPDATE outputs SET value = ? WHERE step_id = 'a'", stored));
      await abortAllDurableObjects();
      for (const path of ['', '/values?ref=steps.a.output']) {
        const res = await api('GET', `/v1/runs/${runId}${path}`);
        expect(res.status, path).toBe(500);
        const error = res.body.error as { code: string; message: string };
        expect(error.code, path).toBe('run_unreadable');
        expect(error.message, path).toContain(says);
      }
    });
  }

  it('answers run_unreadable naming the event when an event of its log does not fit', async () => {
    const runId = await awaitingApproval('compat-bad-event');
    await inObject(runId, (sql) =>
      sql.exec('UPDATE events SET body = ? WHERE seq = 1', JSON.stringify({ seq: 1, type: 'RunCreated' })),
    );
    await abortAllDurableObjects();
    for (const path of ['/events', '/state?at=1']) {
      const res = await api('GET', `/v1/runs/${runId}${path}`);
      expect([res.status, res.body.error?.code], path).toEqual([500, 'run_unreadable']);
      expect(res.body.error.message, path).toContain('stored event 1 does not fit');
      expect(res.body.error.message, path).toContain('event_type');
    }
  });

  it('reads past a cached plan version that is not a plan, and answers from D1', async () => {
    const runId = await awaitingApproval('compat-bad-cache');
    await waitForD1Version(runId);
    const key = `plan:${runId}:v1`;
    await env.KV.put(key, JSON.stringify({ hello: 'an older cache entry' }));
    const v1 = await api('GET', `/v1/runs/${runId}/plans/1`);
    expect(v1.status).toBe(200);
    expect((v1.body.steps as { id: string }[]).map((s) => s.id)).toEqual(['a']);
    expect((await api('GET', `/v1/runs/${runId}/plans/1/diff/1`)).status).toBe(200);
    // Written over with the plan.
    expect(await env.KV.get<{ id: string }>(key, 'json')).toMatchObject({ id: v1.body.id });
  });

  it('answers run_unreadable naming the plan when D1 holds a plan version that does not fit', async () => {
    const runId = await awaitingApproval('compat-bad-version');
    await waitForD1Version(runId);
    await env.KV.delete(`plan:${runId}:v1`);
    await env.DB.prepare('UPDATE plan_versions SET plan_json = ? WHERE run_id = ?')
      .bind(JSON.stringify({ id: 'plan_x', steps: 'none' }), runId)
      .run();
    const res = await api('GET', `/v1/runs/${runId}/plans/1`);
    expect(res.status).toBe(500);
    const error = res.body.error as { code: string; message: string };
    expect(error.code).toBe('run_unreadable');
    expect(error.message).toContain('stored plan does not fit');
  });

  it('answers run_unreadable naming the plan when D1 holds a plan version that is not JSON', async () => {
    const runId = await awaitingApproval('compat-version-not-json');
    await waitForD1Version(runId);
    await env.KV.delete(`plan:${runId}:v1`);
    await env.DB.prepare('UPDATE plan_versions SET plan_json = ? WHERE run_id = ?')
      .bind('{"id": "plan_x", "st', runId)
      .run();
    const res = await api('GET', `/v1/runs/${runId}/plans/1`);
    expect([res.status, res.body.error.code]).toEqual([500, 'run_unreadable']);
    expect(res.body.error.message).toContain('stored plan is not JSON');
  });

  it('answers run_unreadable naming the plan version when its D1 row does not fit', async () => {
    const runId = await awaitingApproval('compat-version-row');
    await waitForD1Version(runId);
    await env.KV.delete(`plan:${runId}:v1`);
    // A BLOB where text belongs: SQLite's column types do not stop it.
    await env.DB.prepare("UPDATE plan_versions SET reason = x'01', plan_json = x'02' WHERE run_id = ?")
      .bind(runId)
      .run();
    for (const [path, says] of [
      ['/plans', 'stored plan version does not fit'],
      ['/plans/1', 'stored plan version 1 does not fit'],
    ] as const) {
      const res = await api('GET', `/v1/runs/${runId}${path}`);
      expect([res.status, res.body.error.code], path).toEqual([500, 'run_unreadable']);
      expect(res.body.error.message, path).toContain(says);
    }
  });
});

async function waitForD1Version(runId: string): Promise<void> {
  await vi.waitFor(
    async () =>
      expect(
        await env.DB.prepare('SELECT version FROM plan_versions WHERE run_id = ?').bind(runId).first(),
      ).not.toBeNull(),
    { timeout: 2_000, interval: 20 },
  );
}
