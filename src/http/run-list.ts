/**
 * `GET /v1/runs`: a page of the D1 run index, newest first, with an opaque cursor (the last row's
 * `created_at` and id) so pages never skip or repeat a run while new ones arrive. Filters: `status`
 * (or `rejected`: the cancelled runs whose plan was rejected),
 * `parent_run_id` (a run's child runs; index runs_parent, migration 0007) and `top_level` (runs no
 * step started).
 */
import type { z } from '@hono/zod-openapi';
import { RunSummarySchema } from './schemas/run-views';
import { log } from '../log';

type Row = z.infer<typeof RunSummarySchema>;

export type RunPage = { runs: Row[]; next_cursor: string | null };

export async function listRuns(
  db: D1Database,
  q: { status?: string; limit: number; cursor?: string; parent_run_id?: string; top_level?: boolean },
): Promise<RunPage | { error: string }> {
  if (q.parent_run_id !== undefined && q.top_level)
    return {
      error:
        'parent_run_id and top_level=true exclude each other (a run with a parent is not top-level): give one of them',
    };
  let after: { created_at: string; run_id: string } | null = null;
  if (q.cursor !== undefined) {
    after = decodeCursor(q.cursor);
    if (!after)
      return { error: 'cursor is not one this API returned: pass next_cursor from the previous page' };
  }
  const where: string[] = [];
  const args: unknown[] = [];
  if (q.status === 'rejected') {
    // A rejected plan ends its run `cancelled`; the reason says which were rejected.
    where.push("status = 'cancelled' AND termination_reason = 'plan_rejected'");
  } else if (q.status) {
    where.push('status = ?');
    args.push(q.status);
  }
  // Additive filters: without them the list is every run, child runs included, as before.
  if (q.parent_run_id !== undefined) {
    where.push('parent_run_id = ?');
    args.push(q.parent_run_id);
  }
  if (q.top_level) where.push('parent_run_id IS NULL');
  if (after) {
    where.push('(created_at < ? OR (created_at = ? AND run_id < ?))');
    args.push(after.created_at, after.created_at, after.run_id);
  }
  const sql = `SELECT run_id, status, goal, plan_id, plan_version, step_count, created_at, updated_at, completed_at,
    termination_reason, parent_run_id, parent_step_id FROM runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, run_id DESC LIMIT ?`;
  const { results } = await db
    .prepare(sql)
    .bind(...args, q.limit + 1)
    .all();
  const page = results.slice(0, q.limit);
  const runs = page.flatMap(readRow);
  // The cursor is the page's last row as stored, read or not, so the next page starts after it.
  const last = page.at(-1) as { created_at?: unknown; run_id?: unknown } | undefined;
  const next_cursor =
    results.length > q.limit && typeof last?.created_at === 'string' && typeof last.run_id === 'string'
      ? encodeCursor({ created_at: last.created_at, run_id: last.run_id })
      : null;
  return { runs, next_cursor };
}

/**
 * One stored row as listed, or none: a row another release wrote in a shape this one does not read (a
 * status it does not know, say) is left out and logged — one such row made every page answer 500.
 * The run itself is still served by its id.
 */
function readRow(raw: unknown): Row[] {
  const row = RunSummarySchema.safeParse(raw);
  if (row.success) return [row.data];
  const id = (raw as { run_id?: unknown } | null)?.run_id;
  log('run_index_row_unreadable', `GET /v1/runs: index row of run ${String(id)} left out, unreadable`, {
    ...(typeof id === 'string' ? { run_id: id } : {}),
    error: row.error,
  });
  return [];
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
