/**
 * Every plan a run has had, in D1 (`plan_versions`), with KV as a read cache: versions never change
 * once written, so a cached copy is never stale. The run's object writes; the HTTP layer reads.
 *
 * A plan too large for a D1 row (a D1 value holds at most 2 MB; a 100,000-step plan takes several) is
 * listed in D1 with an empty `plan_json` and read from the run's object, which keeps every version in
 * its own SQLite (in chunks) — and copying megabytes into D1 would only slow the run's creation down.
 */
import type { Plan } from '../plan/model';
import { runObject } from './run-object';
import { jsonOf } from './plan-text';
import { z } from 'zod';
import { cachedPlan, jsonRow, parseRow, parsePlanRow } from './row-schemas';

/** The largest plan JSON copied into D1 (characters; at most 3 bytes each, within a 2 MB value). */
export const D1_PLAN_CHARS = 512 * 1024;
/** What `plan_json` holds for a plan kept only in the run's object. */
const IN_OBJECT = '';

/**
 * A version as listed: one row of `plan_versions` without its plan, read back through this schema
 * (the one {@link planVersionStatement} writes). A row that does not fit is the run's state this
 * release cannot read: the `run_unreadable` error naming it, as a plan that does not fit is.
 */
const PlanVersionRowSchema = z.object({
  version: z.number().int().min(1),
  plan_id: z.string(),
  reason: z.string().nullable(),
  created_at: z.string(),
});
export type PlanVersionRow = z.infer<typeof PlanVersionRowSchema>;

/** What a version's `plan_json` holds: its plan's JSON, or {@link IN_OBJECT}. */
const PlanTextRowSchema = z.object({ plan_json: z.string() });

const cacheKey = (runId: string, version: number) => `plan:${runId}:v${version}`;

/** The statement that records a plan version (the object batches it with the run's index row). */
export function planVersionStatement(
  db: D1Database,
  runId: string,
  plan: Plan,
  reason: string | null,
  at: string,
): D1PreparedStatement {
  const text = jsonOf(plan);
  const body = text.length > D1_PLAN_CHARS ? IN_OBJECT : text;
  return db
    .prepare(
      `INSERT OR IGNORE INTO plan_versions (run_id, version, plan_id, plan_json, reason, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
    )
    .bind(runId, plan.version, plan.id, body, reason, at);
}

/**
 * A version's reason as far as the run's object knows it: the first was authored; a revision's reason
 * is kept only in D1 (and in its `PlanUpdated` event).
 */
export function knownReason(version: number): string | null {
  return version === 1 ? 'authored' : null;
}

/**
 * A run's versions from D1 — or, when D1 has none yet (a new run's first write waits up to 250 ms,
 * src/durable/index-writer.ts) or a write was lost, from the run's object; null when there is no such
 * run (an empty list: a run whose plan is still being made, or whose planning failed).
 */
export async function listPlanVersions(env: Env, runId: string): Promise<PlanVersionRow[] | null> {
  const { results } = await env.DB.prepare(
    'SELECT version, plan_id, reason, created_at FROM plan_versions WHERE run_id = ? ORDER BY version',
  )
    .bind(runId)
    .all();
  if (results.length > 0) return results.map((r) => parseRow('plan version', PlanVersionRowSchema, r));
  return runObject(env.PLAN_RUN, runId).planVersions();
}

export async function getPlanVersion(env: Env, runId: string, version: number): Promise<Plan | null> {
  // A cached copy that is not a plan (another release's, or damaged) is read past and written over.
  const cached = cachedPlan(await env.KV.get(cacheKey(runId, version), 'json').catch(() => null));
  if (cached) return cached;
  const row = await env.DB.prepare('SELECT plan_json FROM plan_versions WHERE run_id = ? AND version = ?')
    .bind(runId, version)
    .first()
    .then((r) => (r === null ? null : parseRow(`plan version ${version}`, PlanTextRowSchema, r)));
  let text = row?.plan_json ?? IN_OBJECT;
  if (text === IN_OBJECT) {
    const plan = await runObject(env.PLAN_RUN, runId).planVersion(version);
    if (!plan) return null;
    text = JSON.stringify(plan);
  }
  const plan = parsePlanRow(jsonRow('plan', text));
  if (row) await cache(env, runId, version, text);
  return plan;
}

/**
 * Puts a version's copy in KV — and takes it out again if the run's row went meanwhile: a deletion
 * removes the D1 rows, then the copies (run-deletion.ts), so a copy put after that would serve a
 * deleted run's plan for good. Either the row is still there when checked after the put (then the
 * deletion's own KV delete comes after the put), or it is gone and the copy goes here. A plan read
 * from the run's object (D1 not written yet) is not cached: the next read, from D1, caches it. A
 * failed cache write only costs the next read a trip to D1.
 */
async function cache(env: Env, runId: string, version: number, text: string): Promise<void> {
  const key = cacheKey(runId, version);
  try {
    await env.KV.put(key, text);
    const still = await env.DB.prepare('SELECT 1 FROM plan_versions WHERE run_id = ? AND version = ?')
      .bind(runId, version)
      .first();
    if (!still) await env.KV.delete(key);
  } catch {
    // not cached
  }
}
