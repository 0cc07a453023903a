/**
 * The run's rows in D1 (its index row and plan versions): written by its object, the first write of a
 * new run held back briefly to go with the next, and made whole again by the next instance when a
 * write was lost.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import type { RunEvent } from '../../src/engine/events';
import type { RunState } from '../../src/engine/state';
import { IndexWriter } from '../../src/durable/index-writer';
import { INDEX_GOAL_CHARS } from '../../src/durable/run-index';
import { api, startRun, waitForRun, type Json } from './helpers';

const indexRow = (runId: string) =>
  env.DB.prepare('SELECT status, plan_version FROM runs WHERE run_id = ?')
    .bind(runId)
    .first<{ status: string; plan_version: number }>();
const versions = async (runId: string) =>
  (
    await env.DB.prepare('SELECT version, reason FROM plan_versions WHERE run_id = ? ORDER BY version')
      .bind(runId)
      .all<{ version: number; reason: string | null }>()
  ).results;

describe('a run’s rows in D1', () => {
  it('hold a short run’s end and its plan as soon as the run has ended', async () => {
    const runId = await startRun({ steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] });
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(await indexRow(runId)).toEqual({ status: 'completed', plan_version: 1 });
    expect(await versions(runId)).toEqual([{ version: 1, reason: 'authored' }]);
  });

  it('say why a run ended, in the run and in the list: a rejection apart from a cancellation', async () => {
    const listed = async (runId: string) =>
      ((await api('GET', '/v1/runs?limit=100')).body.runs as Json[]).find((r) => r.run_id === runId);
    const done = await startRun({ steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] });
    const rejected = await startRun(
      { steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] },
      { require_plan_approval: true },
    );
    const cancelled = await startRun(
      { steps: [{ id: 's', action: 'demo.sleep', parameters: { ms: 3_000 } }] },
      { execution_mode: 'parallel' },
    );
    await waitForRun(rejected, (r) => r.status === 'awaiting_approval');
    await api('POST', `/v1/runs/${rejected}/approval`, { decision: 'reject', comment: 'no' });
    await api('POST', `/v1/runs/${cancelled}/cancel`, { reason: 'changed my mind' });
    const expected: [string, string, string][] = [
      [done, 'completed', 'success'],
      [rejected, 'cancelled', 'plan_rejected'],
      [cancelled, 'cancelled', 'changed my mind'],
    ];
    for (const [runId, status, reason] of expected) {
      const run = await waitForRun(runId);
      expect([run.status, run.termination_reason]).toEqual([status, reason]);
      await vi.waitFor(async () =>
        expect(await listed(runId)).toMatchObject({ status, termination_reason: reason }),
      );
    }
    expect((await listed(done))?.termination_reason).toBe('success');
    // `status=rejected` finds the rejected run in D1 itself (a page is never emptied by a client-side
    // filter); `status=cancelled` lists it too, as the run's own status says.
    const ids = async (status: string) =>
      ((await api('GET', `/v1/runs?status=${status}&limit=200`)).body.runs as Json[]).map((r) => r.run_id);
    expect(await ids('rejected')).toContain(rejected);
    expect(await ids('rejected')).not.toContain(cancelled);
    expect(await ids('rejected')).not.toContain(done);
    expect(await ids('cancelled')).toEqual(expect.arrayContaining([rejected, cancelled]));
  });

  it('list a run that is still going once the first write’s short wait is over', async () => {
    const runId = await startRun(
      { steps: [{ id: 's', action: 'demo.sleep', parameters: { ms: 3_000 } }] },
      { execution_mode: 'parallel' },
    );
    await vi.waitFor(
      async () => expect(await indexRow(runId)).toEqual({ status: 'running', plan_version: 1 }),
      {
        timeout: 2_000,
        interval: 20,
      },
    );
    const listed = await api('GET', '/v1/runs?status=running&limit=100');
    expect((listed.body.runs as { run_id: string }[]).map((r) => r.run_id)).toContain(runId);
    expect(await versions(runId)).toHaveLength(1);
    await api('POST', `/v1/runs/${runId}/cancel`, {});
  });

  it('are not needed to read a new run’s plan versions: the object answers until D1 has them', async () => {
    const runId = await startRun(
      { steps: [{ id: 's', action: 'demo.sleep', parameters: { ms: 3_000 } }] },
      { execution_mode: 'parallel' },
    );
    // Straight away: the run's first D1 write is still waiting for its next.
    const [list, v1, missing] = await Promise.all([
      api('GET', `/v1/runs/${runId}/plans`),
      api('GET', `/v1/runs/${runId}/plans/1`),
      api('GET', `/v1/runs/${runId}/plans/2`),
    ]);
    expect(list.status).toBe(200);
    expect(list.body.versions).toMatchObject([{ version: 1, reason: 'authored' }]);
    expect(v1.status).toBe(200);
    expect((v1.body.steps as { id: string }[]).map((s) => s.id)).toEqual(['s']);
    expect(missing.status).toBe(404);
    await api('POST', `/v1/runs/${runId}/cancel`, {});
  });

  it('are written again by the next instance when the last one’s writes were lost', async () => {
    const runId = await startRun({ steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] });
    await waitForRun(runId);
    await vi.waitFor(async () => expect(await indexRow(runId)).not.toBeNull());
    // As if the instance died before its writes reached D1.
    await env.DB.batch([
      env.DB.prepare('DELETE FROM runs WHERE run_id = ?').bind(runId),
      env.DB.prepare('DELETE FROM plan_versions WHERE run_id = ?').bind(runId),
    ]);
    await abortAllDurableObjects();
    expect((await api('GET', `/v1/runs/${runId}/status`)).status).toBe(200);
    await vi.waitFor(
      async () => {
        expect(await indexRow(runId)).toEqual({ status: 'completed', plan_version: 1 });
        expect(await versions(runId)).toEqual([{ version: 1, reason: 'authored' }]);
      },
      { timeout: 2_000, interval: 20 },
    );
    const plans = await api('GET', `/v1/runs/${runId}/plans`);
    expect(plans.status).toBe(200);
  });

  it('are made good by the run’s alarm when its last write did not reach D1 and nothing reads the run', async () => {
    const runId = await startRun(
      { steps: [{ id: 's', action: 'demo.sleep', parameters: { ms: 1_000 } }] },
      { execution_mode: 'parallel' },
    );
    await vi.waitFor(async () => expect((await indexRow(runId))?.status).toBe('running'));
    const stub = env.PLAN_RUN.getByName(runId);
    // D1 refuses the object's batches until the run has ended (as if it died before writing them).
    const db = env.DB;
    const envOf = (instance: unknown) => (instance as { env: Env }).env;
    await runInDurableObject(stub, (instance) => {
      envOf(instance).DB = new Proxy(db, {
        get: (target, key) =>
          key === 'batch'
            ? () => Promise.reject(new Error('D1 is unavailable'))
            : (Reflect.get(target, key) as unknown),
      });
    });
    await vi.waitFor(
      async () =>
        expect(
          await runInDurableObject(
            stub,
            (_i, state) =>
              state.storage.sql
                .exec("SELECT count(*) AS n FROM events WHERE event_type = 'RunTerminated'")
                .one().n,
          ),
        ).toBe(1),
      { timeout: 3_000, interval: 20 },
    );
    await runInDurableObject(stub, (instance) => {
      envOf(instance).DB = db;
    });
    expect((await indexRow(runId))?.status).toBe('running');
    // A new instance with D1 back, woken by its alarm alone (no request reads the run).
    await abortAllDurableObjects();
    const again = env.PLAN_RUN.getByName(runId);
    expect(await runDurableObjectAlarm(again)).toBe(true);
    await vi.waitFor(
      async () => expect(await indexRow(runId)).toEqual({ status: 'completed', plan_version: 1 }),
      {
        timeout: 2_000,
        interval: 20,
      },
    );
    // Nothing owed any more: no alarm is left to wake the ended run.
    expect(await runInDurableObject(again, (_i, state) => state.storage.getAlarm())).toBeNull();
  });

  it('keep an alarm for a row a new instance could not write, and write it once D1 is back', async () => {
    const runId = await startRun({ steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] });
    await waitForRun(runId);
    await vi.waitFor(async () => expect((await indexRow(runId))?.status).toBe('completed'));
    // The row was lost, and D1 cannot be read either (an unmigrated or unreachable database): a new
    // instance's catching up fails, with nothing else due to keep the ended run's alarm.
    await env.DB.prepare('DELETE FROM runs WHERE run_id = ?').bind(runId).run();
    await env.DB.exec('ALTER TABLE runs RENAME TO runs_away');
    const alarmOf = (stub: DurableObjectStub) =>
      runInDurableObject(stub, (_i, state) => state.storage.getAlarm());
    try {
      await abortAllDurableObjects();
      expect((await api('GET', `/v1/runs/${runId}`)).status).toBe(200);
      await vi.waitFor(async () => expect(await alarmOf(env.PLAN_RUN.getByName(runId))).not.toBeNull());
      // Woken by that alarm alone, a new instance fails again: the alarm is kept for the next try.
      await abortAllDurableObjects();
      expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId))).toBe(true);
      await vi.waitFor(async () => expect(await alarmOf(env.PLAN_RUN.getByName(runId))).not.toBeNull());
    } finally {
      await env.DB.exec('ALTER TABLE runs_away RENAME TO runs');
    }
    await abortAllDurableObjects();
    const again = env.PLAN_RUN.getByName(runId);
    expect(await runDurableObjectAlarm(again)).toBe(true);
    await vi.waitFor(async () =>
      expect(await indexRow(runId)).toEqual({ status: 'completed', plan_version: 1 }),
    );
    expect(await alarmOf(again)).toBeNull();
  });

  it('are corrected by the next instance when D1 holds a stale status, and left alone when current', async () => {
    const runId = await startRun({ steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] });
    await waitForRun(runId);
    await vi.waitFor(async () => expect((await indexRow(runId))?.status).toBe('completed'));
    const updatedAt = () =>
      env.DB.prepare('SELECT updated_at FROM runs WHERE run_id = ?').bind(runId).first<string>('updated_at');
    // Current: a read that wakes a new instance writes nothing.
    const before = await updatedAt();
    await abortAllDurableObjects();
    expect((await api('GET', `/v1/runs/${runId}`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect(await updatedAt()).toBe(before);
    // Stale (a status write that never landed): corrected.
    await env.DB.prepare("UPDATE runs SET status = 'running' WHERE run_id = ?").bind(runId).run();
    await abortAllDurableObjects();
    expect((await api('GET', `/v1/runs/${runId}`)).status).toBe(200);
    await vi.waitFor(async () => expect((await indexRow(runId))?.status).toBe('completed'), {
      timeout: 2_000,
      interval: 20,
    });
  });

  it('are written again by the next instance when the index row does not read as one', async () => {
    const runId = await startRun({ steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] });
    await waitForRun(runId);
    await vi.waitFor(async () => expect((await indexRow(runId))?.status).toBe('completed'));
    const stepCount = () =>
      env.DB.prepare('SELECT step_count FROM runs WHERE run_id = ?').bind(runId).first('step_count');
    // Text where a count belongs: SQLite's column types do not stop it.
    await env.DB.prepare("UPDATE runs SET step_count = 'one' WHERE run_id = ?").bind(runId).run();
    await abortAllDurableObjects();
    expect((await api('GET', `/v1/runs/${runId}`)).status).toBe(200);
    await vi.waitFor(async () => expect(await stepCount()).toBe(1), { timeout: 2_000, interval: 20 });
    expect((await api('GET', '/v1/runs?limit=100')).body.runs.map((r: Json) => r.run_id)).toContain(runId);
  });

  it('are corrected by the next instance when an earlier release left the row behind the run', async () => {
    const runId = await startRun(
      {
        steps: [
          { id: 'a', action: 'demo.echo', parameters: { x: 1 } },
          { id: 'b', action: 'demo.echo' },
        ],
      },
      { require_plan_approval: true },
    );
    await waitForRun(runId, (r) => r.status === 'awaiting_approval');
    await api('POST', `/v1/runs/${runId}/approval`, { decision: 'reject' });
    await waitForRun(runId);
    const row = () =>
      env.DB.prepare(
        'SELECT status, plan_id, plan_version, step_count, termination_reason FROM runs WHERE run_id = ?',
      )
        .bind(runId)
        .first();
    await vi.waitFor(async () => expect((await row())?.termination_reason).toBe('plan_rejected'));
    const current = await row();
    // As the release before migration 0003 and one plan id for a streamed plan left it: the same status
    // and version, but no termination_reason, the stream's plan id and the step count of its first step.
    await env.DB.prepare(
      "UPDATE runs SET plan_id = 'plan_stream', step_count = 1, termination_reason = NULL WHERE run_id = ?",
    )
      .bind(runId)
      .run();
    await abortAllDurableObjects();
    expect((await api('GET', `/v1/runs/${runId}`)).status).toBe(200);
    await vi.waitFor(async () => expect(await row()).toEqual(current), { timeout: 2_000, interval: 20 });
    expect(current).toMatchObject({
      status: 'cancelled',
      step_count: 2,
      termination_reason: 'plan_rejected',
    });
  });

  it('name the run’s current plan when a version is authored without a change of status', async () => {
    const plan = (version: number, steps: string[]) => ({
      id: 'plan_iwrev',
      version,
      goal: 'g',
      steps: steps.map((id) => ({ id, action: 'demo.echo', parameters: {}, dependencies: [] })),
      created_at: new Date().toISOString(),
    });
    const v1 = plan(1, ['a']);
    const state = {
      run_id: 'run_indexwriterrevised',
      status: 'running',
      goal: 'g',
      plan: v1,
      steps: new Map([['a', {}]]),
      created_at: v1.created_at,
      completed_at: null as string | null,
    };
    const writer = new IndexWriter({
      db: () => env.DB,
      waitUntil: () => undefined,
      state: () => state as unknown as RunState,
      plan: () => null,
      parent: () => null,
    });
    const event = (event_type: string, p: ReturnType<typeof plan>, reason?: string) => ({
      event_type,
      timestamp: p.created_at,
      payload: { plan: p, reason },
    });
    await writer.record([event('PlanAuthored', v1)] as unknown as RunEvent[], true);
    // A revision (or a rollback) while the run goes on: the status stays `running`.
    const v2 = plan(2, ['a', 'b', 'c']);
    state.plan = v2;
    state.steps = new Map([
      ['a', {}],
      ['b', {}],
      ['c', {}],
    ]);
    await writer.record([event('PlanUpdated', v2, 'new information')] as unknown as RunEvent[], false);
    expect(
      await env.DB.prepare('SELECT status, plan_version, step_count FROM runs WHERE run_id = ?')
        .bind(state.run_id)
        .first(),
    ).toEqual({ status: 'running', plan_version: 2, step_count: 3 });
    expect(await versions(state.run_id)).toEqual([
      { version: 1, reason: 'authored' },
      { version: 2, reason: 'new information' },
    ]);
  });

  it('keep a version’s reason and time when it is authored while a new instance reads D1', async () => {
    // An approver's changed plan sent to a run whose object had gone: the request wakes a new
    // instance, whose resync reads D1 while the decision authors v2.
    const plan = (version: number) => ({
      id: 'plan_iwresync',
      version,
      goal: 'g',
      strategy: 'flat' as const,
      steps: [{ id: 'a', description: 'a', action: 'demo.echo', parameters: { version }, dependencies: [] }],
      created_at: '2026-11-29T09:00:00.000Z',
    });
    const [v1, v2] = [plan(1), plan(2)];
    const state = {
      run_id: 'run_indexwriterresyncedit',
      status: 'running',
      goal: 'g',
      plan: v1,
      steps: new Map([['a', {}]]),
      created_at: v1.created_at,
      completed_at: null as string | null,
    };
    const writer = new IndexWriter({
      db: () => env.DB,
      waitUntil: () => undefined,
      state: () => state as unknown as RunState,
      plan: (v) => [v1, v2][v - 1] ?? null,
      parent: () => null,
    });
    const resynced = writer.resync();
    state.plan = v2;
    const edit = {
      event_type: 'PlanUpdated',
      timestamp: '2026-11-29T09:05:00.000Z',
      payload: { plan: v2, reason: 'high priority', kind: 'approval_edit' },
    };
    await writer.record([edit] as unknown as RunEvent[], false, true);
    await resynced;
    await writer.flush();
    const rows = await env.DB.prepare(
      'SELECT version, reason, created_at FROM plan_versions WHERE run_id = ? ORDER BY version',
    )
      .bind(state.run_id)
      .all();
    expect(rows.results).toEqual([
      { version: 1, reason: 'authored', created_at: v1.created_at },
      { version: 2, reason: 'high priority', created_at: edit.timestamp },
    ]);
  });

  it('cost a short run one D1 batch, whatever decisions without a change come between', async () => {
    let batches = 0;
    const db = new Proxy(env.DB, {
      get(target, key) {
        if (key === 'batch')
          return (statements: D1PreparedStatement[]) => {
            batches += 1;
            return target.batch(statements);
          };
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const plan = { id: 'plan_iw', version: 1, goal: 'g', steps: [], created_at: new Date().toISOString() };
    const state = {
      run_id: 'run_indexwriterone',
      status: 'running',
      goal: 'g',
      plan,
      steps: new Map(),
      created_at: plan.created_at,
      completed_at: null as string | null,
    };
    const writer = new IndexWriter({
      db: () => db,
      waitUntil: () => undefined,
      state: () => state as unknown as RunState,
      plan: () => null,
      parent: () => null,
    });
    const authored = { event_type: 'PlanAuthored', timestamp: plan.created_at, payload: { plan } };
    await writer.record([authored] as unknown as RunEvent[], true, true); // the new run: waits
    await writer.record([], false); // a step's result: nothing to write
    await writer.record([], false);
    expect(batches).toBe(0);
    state.status = 'completed';
    state.completed_at = new Date().toISOString();
    await writer.record([], true); // the end: one batch with everything
    expect(batches).toBe(1);
    expect(await indexRow(state.run_id)).toEqual({ status: 'completed', plan_version: 1 });
    expect(await versions(state.run_id)).toEqual([{ version: 1, reason: 'authored' }]);
  });

  it('list a plan’s long goal cut to what a D1 value and a page of the list can carry; the run keeps it whole', async () => {
    const goal = 'g'.repeat(3_000_000);
    const runId = await startRun({ goal, steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] });
    const run = await waitForRun(runId);
    expect(run.goal).toBe(goal);
    const row = await env.DB.prepare('SELECT goal FROM runs WHERE run_id = ?')
      .bind(runId)
      .first<{ goal: string }>();
    expect(row?.goal).toBe(`${'g'.repeat(INDEX_GOAL_CHARS - 1)}…`);
    const listed = ((await api('GET', '/v1/runs?limit=100')).body.runs as Json[]).find(
      (r) => r.run_id === runId,
    );
    expect(listed?.goal).toBe(row?.goal);
  });
});
