/**
 * `GET /v1/runs`: a page of the D1 run index, newest first, with an opaque cursor (the last row's
 * `created_at` and id) so pages never skip or repeat a run while new ones arrive.
 */
import type { z } from '@hono/zod-openapi';
import { RunSummarySchema } from './schemas/run-views';

type Row = z.infer<typeof RunSummarySchema>;
const RowsSchema = RunSummarySchema.array();

export type RunPage = { runs: Row[]; next_cursor: string | null };

export async function listRuns(
  db: D1Database,
  q: { status?: string; limit: number; cursor?: string },
): Promise<RunPage | { error: string }> {
  let after: { created_at: string; run_id: string } | null = null;
  if (q.cursor !== undefined) {
    after = decodeCursor(q.cursor);
    if (!after)
      return { error: 'cursor is not one this API returned: pass next_cursor from the previous page' };
  }
  const where: string[] = [];
  const args: unknown[] = [];
  if (q.status) {
    where.push('status = ?');
    args.push(q.status);
  }
  if (after) {
    where.push('(created_at < ? OR (created_at = ? AND run_id < ?))');
    args.push(after.created_at, after.created_at, after.run_id);
  }
  const sql = `SELECT run_id, status, goal, plan_id, plan_version, step_count, created_at, updated_at, completed_at,
    termination_reason FROM runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, run_id DESC LIMIT ?`;
  const { results } = await db
    .prepare(sql)
    .bind(...args, q.limit + 1)
    .all();
  const runs = RowsSchema.parse(results.slice(0, q.limit));
  const last = runs[runs.length - 1];
  const next_cursor = results.length > q.limit && last ? encodeCursor(last) : null;
  return { runs, next_cursor };
}

function encodeCursor(r: { created_at: string; run_id: string }): string {
  return btoa(JSON.stringify([r.created_at, r.run_id])).replaceAll('=', '');
}

function decodeCursor(s: string): { created_at: string; run_id: string } | null {
  try {
    const v: unknown = JSON.parse(atob(s));
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string') {
      return { created_at: v[0], run_id: v[1] };
    }
  } catch {
    // fall through: not a cursor we made
  }
  return null;
}
