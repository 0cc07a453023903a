/**
 * A Worker deployed without something edgeplan needs — a binding, the run object's SQLite storage,
 * D1's tables — fails deep inside a request with the runtime's own words. These read such a failure
 * and say what to add, so `500 misconfigured` tells the operator the fix instead of `internal`.
 */

/** The bindings edgeplan's API reads, and what each is. */
const BINDINGS: Record<string, string> = {
  PLAN_RUN:
    'the PlanRun Durable Object ([[durable_objects.bindings]] name = "PLAN_RUN", class_name = "PlanRun")',
  DB: 'the D1 database ([[d1_databases]] binding = "DB", migrations_dir = "node_modules/edgeplan/migrations")',
  KV: 'the KV namespace ([[kv_namespaces]] binding = "KV")',
  STEPS: 'the steps queue ([[queues.producers]] binding = "STEPS", and a [[queues.consumers]] entry for it)',
};

/**
 * What the Worker lacks, judged from `err` and its bindings, as a message naming the fix; null when
 * the error is not one of these.
 * @example misconfiguration(new Error('D1_ERROR: no such table: runs'), env) // 'The D1 database … migrations apply …'
 */
export function misconfiguration(err: unknown, env: object | undefined): string | null {
  const message = err instanceof Error ? err.message : String(err);
  if (/SQL is not enabled/i.test(message))
    return (
      'The PlanRun Durable Object class has no SQLite storage: add to wrangler.toml ' +
      '[[migrations]] tag = "v1" new_sqlite_classes = ["PlanRun"]'
    );
  // A table missing, or a column a newer edgeplan added ("no such column: x", "has no column named x").
  const table = /no such table: (\w+)|no such column: (\w+)|has no column named (\w+)/.exec(message);
  if (table)
    return (
      `The D1 database (binding DB) has no ${table[1] ? 'table' : 'column'} "${table[1] ?? table[2] ?? table[3]}": apply edgeplan's migrations, ` +
      '`wrangler d1 migrations apply DB --local` (with `--persist-to <dir>` too when `wrangler dev` has one; ' +
      'deployed: --remote, which `edgeplan deploy` runs)'
    );
  const bindings = (env ?? {}) as Record<string, unknown>;
  const missing = Object.keys(BINDINGS).filter((name) => bindings[name] === undefined);
  if (missing.length > 0 && err instanceof TypeError)
    return `The Worker has no binding ${missing.map((m) => `${m}: ${BINDINGS[m]}`).join('; ')}. Add it to wrangler.toml (examples/custom-worker/wrangler.toml has every one).`;
  return null;
}
