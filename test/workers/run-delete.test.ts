/**
 * `DELETE /v1/runs/:id`: an ended run and everything stored for it go — its object's storage, its D1
 * rows, its KV copies, its child runs — and a deletion a crash or an outage interrupted is finished by
 * a second DELETE or by the object's own alarm, with nothing able to bring the run back meanwhile.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, startRun, waitForRun, type Json } from './helpers';
import { breakInObject, d1Rows, echo, endedRun, listed, objectStorage } from './run-delete-helpers';
import { APPROVER_URL, runAwaitingApproval } from './approval-helpers';

/** Every read route of a run, each of which must answer 404 once it is deleted. */
const readRoutes = (id: string) => [
  `/v1/runs/${id}`,
  `/v1/runs/${id}/status`,
  `/v1/runs/${id}/events`,
  `/v1/runs/${id}/values?ref=final_output`,
  `/v1/runs/${id}/state`,
  `/v1/runs/${id}/ws`,
  `/v1/runs/${id}/plans`,
  `/v1/runs/${id}/plans/1`,
  `/v1/runs/${id}/planning`,
];

/** An HTML page of the Worker (the approval link's). */
const page = (path: string) => exports.default.fetch(new Request(`http://edgeplan.test${path}`));

afterEach(() => vi.restoreAllMocks());

describe('DELETE /v1/runs/:id', () => {
  it('deletes an ended run and everything stored for it; every route then answers 404', async () => {
    const id = await endedRun();
    const del = await api('DELETE', `/v1/runs/${id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ run_id: id, child_runs: [] });
    for (const path of readRoutes(id)) {
      const r = await api('GET', path);
      expect([path, r.status, r.body.error?.code]).toEqual([path, 404, 'not_found']);
    }
    for (const path of ['cancel', 'retry', 'replan', 'input', 'approval']) {
      const r = await api('POST', `/v1/runs/${id}/${path}`, path === 'replan' ? { reason: 'x' } : {});
      expect([path, r.status]).toEqual([path, 404]);
    }
    expect(await listed(id)).toBe(false);
    expect(await d1Rows(id)).toEqual({ runs: 0, versions: 0 });
    expect(await env.KV.get(`plan:${id}:v1`)).toBeNull();
    expect(await objectStorage(id)).toEqual({ tables: [], alarm: null });
    const again = await api('DELETE', `/v1/runs/${id}`);
    expect([again.status, again.body.error.code]).toEqual([404, 'not_found']);
  });

  it('refuses a run that has not ended (409, cancel it first), and deletes it once cancelled', async () => {
    const id = await startRun(
      { steps: [{ id: 's', action: 'demo.sleep', parameters: { ms: 5_000 } }] },
      { execution_mode: 'parallel' },
    );
    await waitForRun(id, (r) => r.status === 'running');
    const refused = await api('DELETE', `/v1/runs/${id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'conflict',
      details: { reason: 'run_active', run_id: expect.stringMatching(/^run_/) },
    });
    expect(refused.body.error.message).toContain(`POST /v1/runs/${id}/cancel`);
    expect((await api('GET', `/v1/runs/${id}`)).body.status).toBe('running');
    await api('POST', `/v1/runs/${id}/cancel`, {});
    await waitForRun(id);
    expect((await api('DELETE', `/v1/runs/${id}`)).status).toBe(200);
    expect((await api('GET', `/v1/runs/${id}`)).status).toBe(404);
  });

  it('answers 404 for a run that never existed and for an id that cannot be one', async () => {
    expect((await api('DELETE', '/v1/runs/run_neverexisted')).body.error.code).toBe('not_found');
    expect((await api('DELETE', '/v1/runs/nope')).status).toBeGreaterThanOrEqual(400);
    expect((await api('DELETE', '/v1/runs/nope')).status).toBeLessThan(500);
  });

  it('deletes the run’s child runs, at any depth, with it', async () => {
    const grandchild = { goal: 'grandchild', steps: [echo('g')] };
    const child = {
      goal: 'child',
      steps: [echo('x'), { id: 'deeper', action: 'agent.dispatch', parameters: { plan: grandchild } }],
    };
    const id = await startRun({
      steps: [{ id: 'c', action: 'agent.dispatch', parameters: { plan: child } }],
    });
    const run = await waitForRun(id);
    expect(run.status).toBe('completed');
    const childId = run.step_results.c.run_id as string;
    const grandId = (await api('GET', `/v1/runs/${childId}`)).body.step_results.deeper.run_id as string;
    expect((await api('GET', `/v1/runs/${grandId}`)).status).toBe(200);
    // A child on its own is refused nothing: it ended too.
    const del = await api('DELETE', `/v1/runs/${id}`);
    expect(del.status).toBe(200);
    expect(del.body.child_runs).toEqual([childId, grandId]);
    for (const gone of [id, childId, grandId]) {
      expect((await api('GET', `/v1/runs/${gone}`)).status).toBe(404);
      expect(await d1Rows(gone)).toEqual({ runs: 0, versions: 0 });
      expect((await objectStorage(gone)).tables).toEqual([]);
    }
  });

  it('deletes a sub-plan step’s child run with it (the step names another action)', async () => {
    // Found by scripts/chaos.mjs: a sub-plan step's attempt is scheduled under the step's own action
    // (demo.echo here) and only invoked as agent.dispatch, so its child run was left behind, readable.
    const id = await startRun({
      steps: [{ id: 's', description: 'a sub-plan', action: 'demo.echo', subplan: { steps: [echo('x')] } }],
    });
    const run = await waitForRun(id);
    expect(run.status).toBe('completed');
    const childId = run.step_results.s.run_id as string;
    await vi.waitFor(async () => expect(await d1Rows(childId)).toEqual({ runs: 1, versions: 1 }));
    const del = await api('DELETE', `/v1/runs/${id}`);
    expect(del.status).toBe(200);
    expect(del.body.child_runs).toEqual([childId]);
    expect((await api('GET', `/v1/runs/${childId}`)).status).toBe(404);
    expect(await d1Rows(childId)).toEqual({ runs: 0, versions: 0 });
    expect((await objectStorage(childId)).tables).toEqual([]);
  });

  it('leaves no KV copy behind from a plan version read while the run was deleted', async () => {
    const id = await startRun({ goal: 'one echo', steps: [echo('a')] });
    expect((await waitForRun(id)).status).toBe('completed');
    await vi.waitFor(async () => expect(await d1Rows(id)).toEqual({ runs: 1, versions: 1 }));
    // A first read of version 1 (no copy yet) got the row from D1; its copy lands after the deletion.
    let release = () => undefined as void;
    const gate = new Promise<void>((r) => (release = r));
    let putting = false;
    const slowPut = new Proxy(env.KV, {
      get: (target, key) => {
        const value = Reflect.get(target, key) as unknown;
        if (key !== 'put') return typeof value === 'function' ? value.bind(target) : value;
        return async (...args: Parameters<KVNamespace['put']>) => {
          putting = true;
          await gate;
          return target.put(...args);
        };
      },
    });
    const { getPlanVersion } = await import('../../src/durable/plan-versions');
    const reading = getPlanVersion({ ...env, KV: slowPut }, id, 1);
    await vi.waitFor(() => expect(putting).toBe(true));
    expect((await api('DELETE', `/v1/runs/${id}`)).status).toBe(200);
    release();
    expect((await reading)?.steps.map((s) => s.id)).toEqual(['a']);
    expect(await env.KV.get(`plan:${id}:v1`)).toBeNull();
    expect((await api('GET', `/v1/runs/${id}/plans/1`)).status).toBe(404);
  });

  it('cancels and deletes a child run still going when its ended parent is deleted', async () => {
    // The parent's step gives up on the child (timeout), so the parent ends while the child runs on.
    const slow = { steps: [{ id: 's', action: 'demo.sleep', parameters: { ms: 10_000 } }] };
    const id = await startRun(
      { steps: [{ id: 'c', action: 'agent.dispatch', parameters: { plan: slow }, timeout_ms: 300 }] },
      { retry_failed_steps: 0, execution_mode: 'parallel' },
    );
    const run = await waitForRun(id);
    expect(run.status).not.toBe('completed');
    const events = (await api('GET', `/v1/runs/${id}/events?limit=1000`)).body.events as Json[];
    const invoked = events.find((e) => e.event_type === 'ToolInvoked' && e.payload.step_id === 'c')!;
    const childId = await childIdOf(id, 'c', invoked.payload.attempt as number);
    expect((await api('GET', `/v1/runs/${childId}`)).body.status).toBe('running');
    const del = await api('DELETE', `/v1/runs/${id}`);
    expect(del.status).toBe(200);
    expect(del.body.child_runs).toEqual([childId]);
    expect((await api('GET', `/v1/runs/${childId}`)).status).toBe(404);
  });

  it('stops the run’s approval link from working', async () => {
    const { runId, token } = await runAwaitingApproval(
      { steps: [echo('a')] },
      { require_plan_approval: true, approval: { webhook_url: APPROVER_URL } },
    );
    const link = `/v1/runs/${runId}/approval?token=${encodeURIComponent(token)}`;
    expect((await page(link)).status).toBe(200);
    // Awaiting approval is not ended: cancelled first.
    expect((await api('DELETE', `/v1/runs/${runId}`)).status).toBe(409);
    await api('POST', `/v1/runs/${runId}/cancel`, {});
    expect((await api('DELETE', `/v1/runs/${runId}`)).status).toBe(200);
    // Answered as a link naming no run is: not valid (it tells the holder nothing about the run).
    expect((await page(link)).status).toBe(403);
    const decided = await api('POST', link, { decision: 'approve' });
    expect([decided.status, decided.body.error.code]).toEqual([403, 'forbidden']);
    expect((await objectStorage(runId)).tables).toEqual([]);
  });
});

describe('a deletion interrupted', () => {
  it('by a D1 outage: the run is hidden at once, and a second DELETE finishes it', async () => {
    const id = await endedRun();
    await breakInObject(id, 'DB');
    const first = await api('DELETE', `/v1/runs/${id}`);
    expect([first.status, first.body.error.code]).toEqual([503, 'deletion_pending']);
    expect(first.headers.get('Retry-After')).toBe('60');
    expect((await api('GET', `/v1/runs/${id}`)).status).toBe(404);
    // D1 still lists it; the object waits to finish, with its alarm.
    expect(await d1Rows(id)).toEqual({ runs: 1, versions: 1 });
    expect((await objectStorage(id)).alarm).not.toBeNull();
    // The instance dies (a crash); nothing that reaches the object meanwhile brings the run back.
    await abortAllDurableObjects();
    const stub = env.PLAN_RUN.getByName(id);
    expect(await stub.beginSteps([{ step_id: 'a', attempt: 1 }])).toEqual([
      { proceed: false, reason: 'no such run' },
    ]);
    expect(
      await stub.completeSteps([
        { step_id: 'a', attempt: 1, outcome: { success: true, output: 1, latency_ms: 1 } },
      ]),
    ).toEqual([]);
    expect((await api('GET', `/v1/runs/${id}`)).status).toBe(404);
    expect(await d1Rows(id)).toEqual({ runs: 1, versions: 1 });
    const second = await api('DELETE', `/v1/runs/${id}`);
    expect(second.status).toBe(200);
    expect(await d1Rows(id)).toEqual({ runs: 0, versions: 0 });
    expect(await listed(id)).toBe(false);
    expect(await env.KV.get(`plan:${id}:v1`)).toBeNull();
    expect(await objectStorage(id)).toEqual({ tables: [], alarm: null });
  });

  it('by a crash after D1 and before the object’s storage: the object’s alarm finishes it by itself', async () => {
    const id = await endedRun();
    await breakInObject(id, 'KV');
    expect((await api('DELETE', `/v1/runs/${id}`)).status).toBe(503);
    // D1's rows went; the KV copy and the object's storage are left.
    expect(await d1Rows(id)).toEqual({ runs: 0, versions: 0 });
    expect((await objectStorage(id)).tables).not.toEqual([]);
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(id))).toBe(true);
    expect(await env.KV.get(`plan:${id}:v1`)).toBeNull();
    expect(await objectStorage(id)).toEqual({ tables: [], alarm: null });
    expect((await api('DELETE', `/v1/runs/${id}`)).status).toBe(404);
  });

  it('by a crash while the run is hidden and D1 is still being waited on: its alarm finishes it', async () => {
    const id = await endedRun();
    // A new instance: the DELETE's first read of the run re-syncs its D1 row, which the deletion waits
    // for before removing the rows — made to hang here, as a slow D1 would, so the crash lands there.
    await abortAllDurableObjects();
    const real = env.DB;
    const hanging = new Proxy(real, {
      get: (target, key) =>
        key === 'batch' ? () => new Promise(() => undefined) : (Reflect.get(target, key) as unknown),
    });
    await runInDurableObject(env.PLAN_RUN.getByName(id), (instance) => {
      (instance as unknown as { env: Env }).env.DB = hanging;
    });
    const pending = api('DELETE', `/v1/runs/${id}`).catch(() => null);
    try {
      await vi.waitFor(async () => {
        const noted = await runInDurableObject(
          env.PLAN_RUN.getByName(id),
          (_i, state) => state.storage.sql.exec("SELECT 1 FROM meta WHERE key = 'deleting'").toArray().length,
        );
        expect(noted).toBe(1);
      });
    } finally {
      await runInDurableObject(env.PLAN_RUN.getByName(id), (instance) => {
        (instance as unknown as { env: Env }).env.DB = real;
      });
    }
    // The instance dies there: the run is hidden, D1 still lists it, and no one DELETEs it again.
    await abortAllDurableObjects();
    await pending;
    expect((await api('GET', `/v1/runs/${id}`)).status).toBe(404);
    expect(await listed(id)).toBe(true);
    expect((await objectStorage(id)).alarm).not.toBeNull();
    expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(id))).toBe(true);
    expect(await listed(id)).toBe(false);
    expect(await d1Rows(id)).toEqual({ runs: 0, versions: 0 });
    expect(await env.KV.get(`plan:${id}:v1`)).toBeNull();
    expect(await objectStorage(id)).toEqual({ tables: [], alarm: null });
  });

  it('after the object’s storage went but D1 still lists the run: a DELETE removes what D1 holds', async () => {
    const id = await endedRun();
    await runInDurableObject(env.PLAN_RUN.getByName(id), async (_i, state) => {
      await state.storage.deleteAlarm();
      await state.storage.deleteAll();
    });
    await abortAllDurableObjects();
    expect(await listed(id)).toBe(true);
    expect((await api('GET', `/v1/runs/${id}`)).status).toBe(404);
    // An alarm (stray or not) finds nothing to run and writes nothing back.
    expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(id))).toBe(false);
    const del = await api('DELETE', `/v1/runs/${id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ run_id: id, child_runs: [] });
    expect(await listed(id)).toBe(false);
    expect(await env.KV.get(`plan:${id}:v1`)).toBeNull();
    expect((await api('DELETE', `/v1/runs/${id}`)).status).toBe(404);
    expect((await objectStorage(id)).tables).toEqual([]);
  });

  it('after the object’s storage went: removes what D1 holds even when a version row does not read as one', async () => {
    const id = await endedRun();
    await runInDurableObject(env.PLAN_RUN.getByName(id), async (_i, state) => {
      await state.storage.deleteAlarm();
      await state.storage.deleteAll();
    });
    await abortAllDurableObjects();
    // Another release's row: its version is text.
    await env.DB.prepare(
      `INSERT INTO plan_versions (run_id, version, plan_id, plan_json, reason, created_at)
       VALUES (?, 'v2-draft', 'plan_x', '', null, '2026-01-01T00:00:00.000Z')`,
    )
      .bind(id)
      .run();
    await env.KV.put(`plan:${id}:v1`, '{}');
    const del = await api('DELETE', `/v1/runs/${id}`);
    expect([del.status, del.body]).toEqual([200, { run_id: id, child_runs: [] }]);
    expect(await listed(id)).toBe(false);
    const left = await env.DB.prepare('SELECT count(*) AS n FROM plan_versions WHERE run_id = ?')
      .bind(id)
      .first();
    expect(left).toEqual({ n: 0 });
    expect(await env.KV.get(`plan:${id}:v1`)).toBeNull();
  });
});

/** The child run id a parent attempt gets (src/engine/child-run.ts). */
async function childIdOf(runId: string, stepId: string, attempt: number): Promise<string> {
  const { childRunId } = await import('../../src/engine/child-run');
  return childRunId({ run_id: runId, step_id: stepId, attempt });
}
