/**
 * Deleting a run (`DELETE /v1/runs/:id`, or its retention alarm): everything stored for it goes — its
 * child runs, its D1 rows (index row, plan versions, planning attempts), its KV copies of plan
 * versions, and last its object's storage.
 *
 * In that order, so a crash anywhere leaves what a repeated deletion finishes: the object first notes
 * what is to go ({@link DeletionNote}, in the same transaction that removes the run's row — from then on
 * every read answers 404 and nothing can restart it), and keeps an alarm to finish by itself. Its
 * storage goes last: until then the note says which rows and children are left. A run whose object is
 * already gone but that D1 still lists is deleted from D1 alone ({@link deleteIndexedRun}).
 */
import { childRunId, CHILD_RUN_ACTION } from '../engine/child-run';
import type { RunState } from '../engine/state';
import type { SqlStore } from './sql-store';
import type { RpcResult } from './rpc-result';

/** The meta key of a deletion under way. */
export const DELETING = 'deleting';
/** How soon the object's alarm finishes (or retries) a deletion a crash or an outage interrupted. */
export const DELETION_RETRY_MS = 60_000;

/** What a run's deletion still has to remove besides its object's storage. */
export type DeletionNote = {
  run_id: string;
  /** Plan versions 1..versions: their KV copies. */
  versions: number;
  /** The run's plans: planning attempts filed under a plan before attempts named their run. */
  plan_ids: string[];
  /** Attempts of a planning that failed, named by the run's error (their rows name no plan). */
  attempt_ids: string[];
  /** The run's child runs (agent.dispatch, sub-plans, plan.execute), by id. */
  children: string[];
};

/** What a deletion removed: the run and every child run (at any depth). */
export type DeletedRun = { run_id: string; child_runs: string[] };

/** The tools whose attempts start a child run (src/durable/runtime-tools.ts). */
const CHILD_RUN_TOOLS = [CHILD_RUN_ACTION, 'plan.execute'];

/** The note for a run about to be deleted, from its state and its object's rows. */
export async function deletionNote(state: RunState, store: SqlStore): Promise<DeletionNote> {
  const plans = store.listPlans();
  const children = await Promise.all(
    childAttempts(store).map((a) => childRunId({ run_id: state.run_id, ...a })),
  );
  return {
    run_id: state.run_id,
    versions: plans.reduce((n, p) => Math.max(n, p.version), 0),
    plan_ids: [...new Set(plans.map((p) => p.plan_id))],
    attempt_ids: failedPlanningAttempts(state.error?.details),
    children,
  };
}

/**
 * The attempts that started (or may have started) a child run, each once: those scheduled under a
 * child-run tool, and those invoked as one — a sub-plan step's attempt is scheduled under the step's
 * own action and only invoked as `agent.dispatch` (src/engine/begin-attempt.ts), so its row in
 * `attempts` does not name the tool; its `ToolInvoked` does, and always precedes the child run.
 */
function childAttempts(store: SqlStore): { step_id: string; attempt: number }[] {
  const invoked = store
    .eventsOfType('ToolInvoked')
    .filter((e) => CHILD_RUN_TOOLS.includes(e.payload.tool))
    .map((e) => ({ step_id: e.payload.step_id, attempt: e.payload.attempt }));
  const once = new Map<string, { step_id: string; attempt: number }>();
  for (const a of [...store.attemptsOfActions(CHILD_RUN_TOOLS), ...invoked])
    if (!once.has(`${a.step_id}#${a.attempt}`)) once.set(`${a.step_id}#${a.attempt}`, a);
  return [...once.values()];
}

/** The attempt ids in a planning error's `details.planning_trace` (src/http/routes/run-planning.ts). */
function failedPlanningAttempts(details: unknown): string[] {
  const trace = (details as { planning_trace?: unknown } | null | undefined)?.planning_trace;
  if (!Array.isArray(trace)) return [];
  return trace.flatMap((t: unknown) => {
    const id = (t as { attempt_id?: unknown } | null)?.attempt_id;
    return typeof id === 'string' ? [id] : [];
  });
}

/** A note as stored, or null when none is (or it cannot be read: then the deletion starts over). */
export function readNote(store: SqlStore): DeletionNote | null {
  const text = store.getMeta(DELETING);
  if (text === null) return null;
  try {
    return JSON.parse(text) as DeletionNote;
  } catch {
    return null;
  }
}

/**
 * Deletes the child runs (each with its own children, cancelled first if still going: its parent has
 * ended, so nothing waits for its result); throws when one could not be deleted. The ids deleted.
 */
export async function deleteChildren(env: Env, ids: readonly string[]): Promise<string[]> {
  const deleted: string[] = [];
  for (const id of ids) {
    const r = (await env.PLAN_RUN.getByName(id).deleteRun({ cascade: true })) as RpcResult<DeletedRun>;
    if (r.ok) deleted.push(id, ...r.value.child_runs);
    else if (r.error.code !== 'run_not_found') throw new Error(`child run ${id}: ${r.error.message}`);
  }
  return deleted;
}

const kvKey = (runId: string, version: number) => `plan:${runId}:v${version}`;

/**
 * The run's D1 rows and KV entries. D1 in one batch (a transaction); KV after it, so a plan version
 * read meanwhile cannot put back a copy from a row that is still there.
 */
export async function deleteRows(env: Env, note: DeletionNote): Promise<void> {
  const db = env.DB;
  await db.batch([
    db
      .prepare(
        `DELETE FROM planning_attempts WHERE run_id = ?1
           OR (run_id IS NULL AND plan_id IN (SELECT value FROM json_each(?2)))
           OR id IN (SELECT value FROM json_each(?3))`,
      )
      .bind(note.run_id, JSON.stringify(note.plan_ids), JSON.stringify(note.attempt_ids)),
    ...indexedRows(db, note.run_id),
  ]);
  const keys = Array.from({ length: note.versions }, (_, i) => kvKey(note.run_id, i + 1));
  await Promise.all(keys.map((k) => env.KV.delete(k)));
}

/** The run's plan versions and index row (after its planning attempts, found by the versions' plans). */
function indexedRows(db: D1Database, runId: string): D1PreparedStatement[] {
  return [
    db.prepare('DELETE FROM plan_versions WHERE run_id = ?').bind(runId),
    db.prepare('DELETE FROM runs WHERE run_id = ?').bind(runId),
  ];
}

/**
 * A run D1 still knows but whose object has nothing (a deletion that lost its note, or an index row
 * written for an object that never kept the run): its D1 rows and KV entries. Whether there were any.
 */
export async function deleteIndexedRun(env: Env, runId: string): Promise<boolean> {
  const db = env.DB;
  const { results } = await db
    .prepare('SELECT version FROM plan_versions WHERE run_id = ?')
    .bind(runId)
    .all<{ version: number }>();
  const [attempts, versions, row] = await db.batch([
    db
      .prepare(
        `DELETE FROM planning_attempts WHERE run_id = ?1
           OR (run_id IS NULL AND plan_id IN (SELECT plan_id FROM plan_versions WHERE run_id = ?1))`,
      )
      .bind(runId),
    ...indexedRows(db, runId),
  ]);
  const listed = await env.KV.list({ prefix: `plan:${runId}:` });
  const keys = new Set([...results.map((r) => kvKey(runId, r.version)), ...listed.keys.map((k) => k.name)]);
  await Promise.all([...keys].map((k) => env.KV.delete(k)));
  const changed = [attempts, versions, row].reduce((n, r) => n + (r?.meta.changes ?? 0), 0);
  return changed > 0 || keys.size > 0;
}
