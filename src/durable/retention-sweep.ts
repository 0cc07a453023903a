/**
 * `RUN_RETENTION_DAYS`'s sweep, run by the Worker's Cron Trigger (wrangler.toml `[triggers] crons`).
 * An ended run deletes itself by its own alarm, armed when it ends or is next read (retention.ts); a
 * run that ended before the variable was set has no such alarm, and nothing reads it. The sweep reads
 * those: it pages through the D1 run index for runs that ended longer ago than the retention and
 * wakes each one's object, which then arms its alarm and deletes itself (as `DELETE /v1/runs/:id`
 * does). The object stays the judge — it checks its own `completed_at`, so a run retried since D1 was
 * written is not deleted. A row whose object keeps nothing is removed from D1 as `DELETE` removes it.
 *
 * A child run (a sub-plan, `agent.dispatch`, `plan.execute`) whose parent is on the same pass — its
 * parent's index row ended before the cutoff too — is not woken: the parent's deletion takes its
 * children with it, so waking the child would be a second deletion of the same run (and a subrequest of
 * the page's 50). It is not left behind by this: while its parent's row is there the child is not an
 * orphan, and once the parent's row is gone (deleted without this child, say) or no longer ended before
 * the cutoff (retried since), the next pass wakes the child like any run, and it deletes itself by its
 * own `completed_at` as every ended run does. A child whose parent ended after the cutoff is woken.
 *
 * Bounded: {@link SWEEP_RUNS} runs an invocation (within the Workers Free plan's 50 subrequests).
 * Resumable: where it stopped is kept in KV ({@link SWEEP_CURSOR_KEY}); the next invocation goes on
 * from there, and once a pass reaches the end the next starts over (a run that could not be woken is
 * tried again then). Unset, the sweep reads nothing.
 */
import { z } from 'zod';
import { runObject } from './run-object';
import { log } from '../log';
import { deleteIndexedRun } from './run-deletion';
import { retentionMs } from './retention';

/** Runs woken per invocation: with the D1 page and the KV cursor, under 50 subrequests. */
export const SWEEP_RUNS = 40;
/** Objects woken at once (a Worker has 6 simultaneous outgoing connections). */
const AT_ONCE = 6;
/** The KV key of where the last invocation stopped. */
export const SWEEP_CURSOR_KEY = 'retention-sweep:cursor';

/** Where a pass stopped: the last run woken, in the page's order. */
const Cursor = z.object({ completed_at: z.string(), run_id: z.string() });
type Cursor = z.infer<typeof Cursor>;
const Row = z.object({ run_id: z.string(), completed_at: z.string() });
type Row = z.infer<typeof Row>;

/** What one invocation did. */
export type SweepResult = {
  /** Runs whose objects were woken (in order). */
  woken: string[];
  /** Runs D1 listed but whose objects kept nothing: their D1 rows and KV copies were removed. */
  unindexed: string[];
  /** Runs that could not be reached (tried again on the next pass). */
  failed: string[];
  /** Whether runs past the retention may be left after this page (the next invocation goes on). */
  more: boolean;
};

/**
 * One invocation of the sweep, at `now` (epoch ms). Does nothing — no D1 or KV read — when
 * `RUN_RETENTION_DAYS` is unset (or unreadable).
 * @example export default { scheduled: (_c, env) => sweepRetention(env) };
 */
export async function sweepRetention(env: Env, now = Date.now(), limit = SWEEP_RUNS): Promise<SweepResult> {
  const result: SweepResult = { woken: [], unindexed: [], failed: [], more: false };
  const ms = retentionMs(env);
  if (ms === null) return result;
  const cutoff = new Date(now - ms).toISOString();
  const from = await readCursor(env.KV);
  let rows: Row[];
  try {
    rows = await page(env.DB, cutoff, from, limit);
  } catch (err) {
    const message = 'RUN_RETENTION_DAYS: the run index could not be read; tried again next invocation';
    log('retention_sweep_failed', message, { error: err });
    return result;
  }
  for (let i = 0; i < rows.length; i += AT_ONCE)
    await Promise.all(rows.slice(i, i + AT_ONCE).map((r) => wake(env, r.run_id, result)));
  result.more = rows.length === limit;
  await saveCursor(env.KV, result.more ? (rows[rows.length - 1] ?? null) : null, from !== null);
  if (rows.length > 0)
    log(
      'retention_sweep',
      `RUN_RETENTION_DAYS: woke ${result.woken.length} run(s) that ended before ${cutoff} to delete themselves` +
        (result.unindexed.length > 0 ? `, removed ${result.unindexed.length} index row(s) with no run` : '') +
        (result.failed.length > 0 ? `, could not reach ${result.failed.length}` : '') +
        (result.more ? '; the next invocation goes on' : ''),
      { count: rows.length },
    );
  return result;
}

/**
 * The next `limit` runs after `from` that ended before `cutoff`, oldest first (index runs_completed,
 * migration 0006: a page reads its own rows, not the table), but for child runs whose parent ended
 * before `cutoff` too (the parent's deletion deletes them; its row is read by primary key).
 */
async function page(db: D1Database, cutoff: string, from: Cursor | null, limit: number): Promise<Row[]> {
  const { results } = await db
    .prepare(
      `SELECT run_id, completed_at FROM runs AS r
         WHERE completed_at < ?1 AND (completed_at, run_id) > (?2, ?3)
           AND NOT EXISTS (SELECT 1 FROM runs AS p WHERE p.run_id = r.parent_run_id AND p.completed_at < ?1)
         ORDER BY completed_at, run_id LIMIT ?4`,
    )
    .bind(cutoff, from?.completed_at ?? '', from?.run_id ?? '', limit)
    .all();
  return results.map((r) => Row.parse(r));
}

/** Where the last invocation stopped, or null (from the start; an unreadable cursor starts over). */
async function readCursor(kv: KVNamespace): Promise<Cursor | null> {
  const parsed = Cursor.safeParse(await kv.get(SWEEP_CURSOR_KEY, 'json').catch(() => null));
  return parsed.success ? parsed.data : null;
}

/**
 * Keeps where this invocation stopped (null: the pass reached the end, the next starts over). Not
 * kept, the next invocation reads this page again: its runs are woken twice, which is harmless.
 */
async function saveCursor(kv: KVNamespace, last: Cursor | null, had: boolean): Promise<void> {
  try {
    if (last) await kv.put(SWEEP_CURSOR_KEY, JSON.stringify(last));
    else if (had) await kv.delete(SWEEP_CURSOR_KEY);
  } catch (err) {
    log('retention_sweep_failed', 'RUN_RETENTION_DAYS: where the sweep stopped could not be kept (KV)', {
      error: err,
    });
  }
}

/**
 * Wakes the run's object: loading an ended run arms its retention alarm, which deletes it once due by
 * the run's own `completed_at` (run-alarm.ts). An object that keeps no run is given what
 * `DELETE /v1/runs/:id` does for one: its noted deletion finished, or its D1 rows removed.
 */
async function wake(env: Env, runId: string, result: SweepResult): Promise<void> {
  const run = runObject(env.PLAN_RUN, runId);
  try {
    if ((await run.getStatus({})) !== null) return void result.woken.push(runId);
    const r = await run.deleteRun();
    if (r.ok || (r.error.code === 'run_not_found' && (await deleteIndexedRun(env, runId))))
      result.unindexed.push(runId);
  } catch (err) {
    // A run a newer release wrote (a rollback), or an object that failed: tried again next pass.
    result.failed.push(runId);
    log(
      'retention_sweep_failed',
      `RUN_RETENTION_DAYS: run ${runId} could not be woken; tried again next pass`,
      {
        run_id: runId,
        error: err,
      },
    );
  }
}
