/**
 * RUN_RETENTION_DAYS's sweep (the Worker's Cron Trigger): runs that ended before the variable was set
 * have no retention alarm of their own; the sweep pages through the D1 run index for runs that ended
 * longer ago than the retention and wakes each one's object, which arms its alarm and deletes itself.
 * Bounded per invocation, resumable from a cursor in KV; unset, nothing is read.
 */
import {
  abortAllDurableObjects,
  createScheduledController,
  runDurableObjectAlarm,
  runInDurableObject,
} from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { SWEEP_CURSOR_KEY, sweepRetention } from '../../src/durable/retention-sweep';
import { STORAGE_FORMAT } from '../../src/durable/storage-format';
import worker from '../../src/worker';
import { api, startRun, waitForRun } from './helpers';

/** The Worker's own scheduled handler, run by the runtime (its type names only fetch). */
const scheduled = (cron: string) =>
  (exports.default as unknown as { scheduled(o: { cron: string }): Promise<unknown> }).scheduled({ cron });

const stubOf = (id: string) => env.PLAN_RUN.getByName(id);
const alarmOf = (id: string) => runInDurableObject(stubOf(id), (_i, state) => state.storage.getAlarm());
/** Under a millisecond: every run that has ended is past it. */
const TINY = '0.00000001';
/** The Worker's bindings with RUN_RETENTION_DAYS set. */
const retaining = (days: string): Env => ({ ...env, RUN_RETENTION_DAYS: days });

/** Sets RUN_RETENTION_DAYS for the run's object instance alone (a copy of its env). */
const retainFor = (id: string, days: string) =>
  runInDurableObject(stubOf(id), (instance) => {
    const own = instance as unknown as { env: Env };
    own.env = { ...own.env, RUN_RETENTION_DAYS: days };
  });

/** Runs that ended, one after another, with no retention alarm (ended before the variable was set). */
async function endedRuns(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = await startRun({ steps: [{ id: 'a', action: 'demo.echo', parameters: { i } }] });
    await waitForRun(id);
    ids.push(id);
  }
  for (const id of ids) await vi.waitFor(async () => expect(await alarmOf(id)).toBeNull());
  // A deploy (setting the variable is one): no instance of them is loaded any more.
  await abortAllDurableObjects();
  return ids;
}

const listed = (id: string) =>
  env.DB.prepare('SELECT count(*) AS n FROM runs WHERE run_id = ?').bind(id).first<number>('n');

/** A run whose step `research` ran a sub-plan, with a sub-plan of its own: the three ids. */
async function family(): Promise<{ parent: string; child: string; grandchild: string }> {
  const echo = (id: string) => ({ id, action: 'demo.echo', parameters: { id } });
  const parent = await startRun({
    steps: [
      { ...echo('research'), subplan: { steps: [{ ...echo('deeper'), subplan: { steps: [echo('x')] } }] } },
    ],
  });
  const run = await waitForRun(parent);
  expect(run.status).toBe('completed');
  const child = (run.step_results.research as { run_id: string }).run_id;
  const grandchild = ((await waitForRun(child)).step_results.deeper as { run_id: string }).run_id;
  for (const [id, of] of [
    [child, parent],
    [grandchild, child],
  ] as const)
    await vi.waitFor(async () =>
      expect(
        await env.DB.prepare('SELECT parent_run_id FROM runs WHERE run_id = ?')
          .bind(id)
          .first('parent_run_id'),
      ).toBe(of),
    );
  await waitForRun(grandchild);
  await abortAllDurableObjects();
  return { parent, child, grandchild };
}

/** Sets a run's index row's `completed_at` (what the sweep reads) to `at`. */
const indexedEnd = (id: string, at: number) =>
  env.DB.prepare('UPDATE runs SET completed_at = ? WHERE run_id = ?')
    .bind(new Date(at).toISOString(), id)
    .run();

/** When the run ended, as its object says. */
const endedAt = async (id: string) =>
  Date.parse((await api('GET', `/v1/runs/${id}`)).body.completed_at as string);

// The tests of this file share its D1 and KV: each starts from no cursor, and looks at its own runs.
beforeEach(() => env.KV.delete(SWEEP_CURSOR_KEY));

describe('RUN_RETENTION_DAYS sweep (Cron Trigger)', () => {
  it('unset: the scheduled handler reads nothing and deletes nothing', async () => {
    const [id] = await endedRuns(1);
    // The Worker's own handler, with the test's bindings (the variable unset): it resolves.
    await scheduled('*/5 * * * *');
    expect(await sweepRetention(env)).toEqual({ woken: [], unindexed: [], failed: [], more: false });
    expect(await alarmOf(id!)).toBeNull();
    expect((await api('GET', `/v1/runs/${id}`)).status).toBe(200);
    expect(await env.KV.get(SWEEP_CURSOR_KEY)).toBeNull();
  });

  it('set: a run that ended before it was set is woken by the cron and deletes itself', async () => {
    const [old] = await endedRuns(1);
    const id = old!;
    // The object reads its own env: the deployment's, with the variable set.
    await retainFor(id, TINY);
    await worker.scheduled(createScheduledController({ cron: '*/5 * * * *' }), retaining(TINY));
    // Woken, the run armed its alarm; the alarm deletes it (as DELETE /v1/runs/:id does).
    await vi.waitFor(async () => {
      await runDurableObjectAlarm(stubOf(id));
      expect((await api('GET', `/v1/runs/${id}`)).status).toBe(404);
    });
    expect(await listed(id)).toBe(0);
    expect(await alarmOf(id)).toBeNull();
  });

  it('leaves runs that ended after the cutoff untouched', async () => {
    const [id] = await endedRuns(1);
    const r = await sweepRetention(retaining('1'));
    expect(r.woken).toEqual([]);
    expect(await alarmOf(id!)).toBeNull();
    // A day later, it is woken.
    const later = await sweepRetention(retaining('1'), (await endedAt(id!)) + 86_400_001, 1000);
    expect(later.woken).toContain(id);
  });

  it('is bounded per invocation and goes on where the last one stopped, then starts over', async () => {
    const ids = await endedRuns(3);
    const at = new Map(await Promise.all(ids.map(async (id) => [id, await endedAt(id)] as const)));
    // In the sweep's order: by end, then id.
    const order = [...ids].sort((a, b) => at.get(a)! - at.get(b)! || (a < b ? -1 : 1));
    const first = Math.min(...at.values());
    // A pass that begins just before these runs (earlier runs of this file are behind the cursor)…
    await env.KV.put(
      SWEEP_CURSOR_KEY,
      JSON.stringify({ completed_at: new Date(first - 1).toISOString(), run_id: '' }),
    );
    // …at a time when they, and no run that ended after them, are past a day's retention.
    const now = Math.max(...at.values()) + 1 + 86_400_000;
    const sweep = () => sweepRetention(retaining('1'), now, 2);
    expect(await sweep()).toEqual({ woken: order.slice(0, 2), unindexed: [], failed: [], more: true });
    expect(await env.KV.get(SWEEP_CURSOR_KEY, 'json')).toMatchObject({ run_id: order[1] });
    expect(await sweep()).toEqual({ woken: order.slice(2), unindexed: [], failed: [], more: false });
    expect(await env.KV.get(SWEEP_CURSOR_KEY)).toBeNull();
    // The pass reached the end: the next starts over with the oldest ended runs.
    const { results } = await env.DB.prepare(
      `SELECT run_id FROM runs AS r WHERE completed_at IS NOT NULL AND NOT EXISTS
         (SELECT 1 FROM runs AS p WHERE p.run_id = r.parent_run_id AND p.completed_at < ?1)
       ORDER BY completed_at, run_id LIMIT 2`,
    )
      .bind(new Date(now - 86_400_000).toISOString())
      .all<{ run_id: string }>();
    expect((await sweep()).woken).toEqual(results.map((r) => r.run_id));
  });

  it('removes an index row whose object keeps no run, as DELETE does', async () => {
    const id = `run_orphan_${crypto.randomUUID()}`;
    const at = new Date(Date.now() - 60_000).toISOString();
    await env.DB.prepare(
      `INSERT INTO runs (run_id, status, goal, step_count, created_at, updated_at, completed_at)
       VALUES (?1, 'completed', 'g', 0, ?2, ?2, ?2)`,
    )
      .bind(id, at)
      .run();
    const r = await sweepRetention(retaining(TINY), Date.now(), 1000);
    expect(r.unindexed).toEqual([id]);
    expect(r.woken).not.toContain(id);
    expect(await listed(id)).toBe(0);
  });

  it('skips a run it cannot wake (a rollback holds it) and wakes the rest', async () => {
    const [held, other] = await endedRuns(2);
    await runInDurableObject(stubOf(held!), (_i, state) => {
      state.storage.sql.exec(
        "INSERT OR REPLACE INTO meta (key, value) VALUES ('storage_format', ?)",
        String(STORAGE_FORMAT + 1),
      );
    });
    // The newer release's stamp is read when an instance loads the run: as after a rollback.
    await abortAllDurableObjects();
    const logged = vi.spyOn(console, 'error');
    const r = await sweepRetention(retaining(TINY), Date.now(), 1000);
    expect(r.failed).toEqual([held]);
    expect(r.woken).toContain(other);
    expect(r.woken).not.toContain(held);
    const lines = logged.mock.calls.map((c) => c.map(String).join(' '));
    expect(lines.some((l) => l.includes('retention_sweep_failed') && l.includes(held!))).toBe(true);
    logged.mockRestore();
    // The newer release is back (the later tests of this file sweep the same index).
    await runInDurableObject(stubOf(held!), (_i, state) => {
      state.storage.sql.exec(
        "INSERT OR REPLACE INTO meta (key, value) VALUES ('storage_format', ?)",
        String(STORAGE_FORMAT),
      );
    });
  });

  it('wakes a parent past the retention but not its child runs: the parent’s deletion takes them', async () => {
    const { parent, child, grandchild } = await family();
    // Only the parent's object is given the variable: its children go by its deletion, not their own.
    await retainFor(parent, TINY);
    const r = await sweepRetention(retaining(TINY), Date.now(), 1000);
    expect(r.woken).toContain(parent);
    for (const id of [child, grandchild]) {
      expect(r.woken).not.toContain(id);
      expect(r.failed).not.toContain(id);
    }
    // Woken, the parent armed its alarm; the alarm deletes it and, with it, its children at any depth.
    await vi.waitFor(async () => {
      await runDurableObjectAlarm(stubOf(parent));
      expect((await api('GET', `/v1/runs/${parent}`)).status).toBe(404);
    });
    for (const id of [parent, child, grandchild]) {
      expect((await api('GET', `/v1/runs/${id}`)).status).toBe(404);
      expect(await listed(id)).toBe(0);
    }
  });

  it('wakes a child run whose parent ended after the cutoff (it is deleted by its own age), not the parent', async () => {
    const { parent, child, grandchild } = await family();
    const childEnd = await endedAt(child);
    // The parent ended (was retried and ended again, say) a day after its child.
    await indexedEnd(parent, childEnd + 86_400_000);
    await env.KV.put(
      SWEEP_CURSOR_KEY,
      JSON.stringify({ completed_at: new Date(childEnd - 1).toISOString(), run_id: '' }),
    );
    const r = await sweepRetention(retaining('1'), childEnd + 86_400_001, 1000);
    expect(r.woken).toContain(child);
    expect(r.woken).not.toContain(parent);
    // The grandchild's parent (the child) is on this pass: its deletion takes the grandchild.
    expect(r.woken).not.toContain(grandchild);
  });

  it('leaves no child behind: once its parent is gone from the index without it, the next pass wakes it', async () => {
    const { parent, child } = await family();
    const first = await sweepRetention(retaining(TINY), Date.now(), 1000);
    expect(first.woken).toContain(parent);
    expect(first.woken).not.toContain(child);
    // The parent's row went, but the child was not deleted with it (a deletion that did not know it).
    await env.DB.prepare('DELETE FROM runs WHERE run_id = ?').bind(parent).run();
    await env.KV.delete(SWEEP_CURSOR_KEY);
    const next = await sweepRetention(retaining(TINY), Date.now(), 1000);
    expect(next.woken).toContain(child);
  });
});
