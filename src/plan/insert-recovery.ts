/**
 * `revision_strategy: "insert_recovery"`: the planner writes recovery steps for a failed step, and
 * they are inserted in its place — the failed step's dependents wait for the last recovery step and
 * read its output where they read the failed step's, and the rest of the plan stays as it was. Pure.
 */
import { isRecord, type Plan } from './model';

/**
 * The steps of the next version: `previous` with `failedId` replaced by the recovery steps (the
 * candidate's steps whose ids `previous` does not have). A recovery step that lists no dependencies
 * waits for what the failed step waited for. Without recovery steps the candidate stands as written.
 * @example insertRecovery(plan, 'pay', [{ id: 'pay_by_invoice', action: 'billing.invoice', parameters: {} }])
 */
export function insertRecovery(previous: Plan, failedId: string, candidate: readonly unknown[]): unknown[] {
  const known = new Set(previous.steps.map((s) => s.id));
  const recovery = candidate.filter(
    (s): s is Record<string, unknown> => isRecord(s) && typeof s.id === 'string' && !known.has(s.id),
  );
  const failed = previous.steps.find((s) => s.id === failedId);
  if (recovery.length === 0 || !failed) return [...candidate];
  const standIn = recovery.at(-1)!.id as string;
  const inserted = recovery.map((s) =>
    Array.isArray(s.dependencies) && s.dependencies.length > 0
      ? s
      : { ...s, dependencies: [...failed.dependencies] },
  );
  const reads = new RegExp(`(\\{\\{\\s*steps\\.)${escapeRegExp(failedId)}(?=[.\\[\\s}])`, 'g');
  const rewire = (v: unknown): unknown =>
    typeof v === 'string'
      ? v.replace(reads, `$1${standIn}`)
      : Array.isArray(v)
        ? v.map(rewire)
        : isRecord(v)
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rewire(x)]))
          : v;
  const out: unknown[] = [];
  for (const step of previous.steps) {
    if (step.id === failedId) {
      out.push(...inserted);
      continue;
    }
    const touches =
      step.dependencies.includes(failedId) || JSON.stringify(step).includes(`steps.${failedId}`);
    if (!touches) {
      out.push(step);
      continue;
    }
    out.push({
      ...(rewire(step) as Record<string, unknown>),
      dependencies: step.dependencies.map((d) => (d === failedId ? standIn : d)),
    });
  }
  return out;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
