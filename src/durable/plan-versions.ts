/**
 * Every plan a run has had, in D1 (`plan_versions`), with KV as a read cache: versions never change
 * once written, so a cached copy is never stale. The run's object writes; the HTTP layer reads.
 */
import type { Plan } from '../plan/model';

export type PlanVersionRow = { version: number; plan_id: string; reason: string | null; created_at: string };

const cacheKey = (runId: string, version: number) => `plan:${runId}:v${version}`;

export async function recordPlanVersion(
  env: Env,
  runId: string,
  plan: Plan,
  reason: string | null,
  at: string,
): Promise<void> {
  const body = JSON.stringify(plan);
  try {
    await env.DB.prepare(
      `INSERT OR IGNORE INTO plan_versions (run_id, version, plan_id, plan_json, reason, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
    )
      .bind(runId, plan.version, plan.id, body, reason, at)
      .run();
  } catch (err) {
    console.error(`plan versions: could not record ${runId} v${plan.version}`, err);
  }
}

export async function listPlanVersions(env: Env, runId: string): Promise<PlanVersionRow[]> {
  const { results } = await env.DB.prepare(
    'SELECT version, plan_id, reason, created_at FROM plan_versions WHERE run_id = ? ORDER BY version',
  )
    .bind(runId)
    .all<PlanVersionRow>();
  return results;
}

export async function getPlanVersion(env: Env, runId: string, version: number): Promise<Plan | null> {
  const cached = await env.KV.get<Plan>(cacheKey(runId, version), 'json').catch(() => null);
  if (cached) return cached;
  const row = await env.DB.prepare('SELECT plan_json FROM plan_versions WHERE run_id = ? AND version = ?')
    .bind(runId, version)
    .first<{ plan_json: string }>();
  if (!row) return null;
  // A failed cache write only costs the next read a trip to D1.
  await env.KV.put(cacheKey(runId, version), row.plan_json).catch(() => undefined);
  return JSON.parse(row.plan_json) as Plan;
}
