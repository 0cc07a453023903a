/**
 * Deleting a run (`DELETE /v1/runs/:id`, or its retention alarm): everything stored for it goes — its
 * D1 rows (index row, plan versions, planning attempts) and its KV copies of plan versions (first, so
 * the run leaves the list at once), its child runs, and last its object's storage.
 *
 * In that order, so a crash anywhere leaves what a repeated deletion finishes: the object first notes
 * what is to go ({@link DeletionNote}, in the same transaction that removes the run's row — from then on
 * every read answers 404 and nothing can restart it), and keeps an alarm to finish by itself. Its
 * storage goes last: until then the note says which rows and children are left. A run whose object is
 * already gone but that D1 still lists is deleted from D1 alone ({@link deleteIndexedRun}).
 *
 * A run this release cannot read (`run_unreadable`) is deleted only when asked to by force: its note
 * is made from its rows' plain columns ({@link forcedNote}), without its state, and says it was forced,
 * so that whoever finishes the deletion forces its child runs too.
 */
import { z } from 'zod';
import { runObject } from './run-object';
import { childRunId, CHILD_RUN_ACTION } from '../engine/child-run';
import type { RunState } from '../engine/state';
import type { SqlStore } from './sql-store';
import { settleBounded } from './settle-bounded';

/** The meta key of a deletion under way. */
export const DELETING = 'deleting';
/** How soon the object's alarm finishes (or retries) a deletion a crash or an outage interrupted. */
export const DELETION_RETRY_MS = 60_000;

/** How many child runs are deleted at once (each deletes its own children as many at a time). */
export const CHILD_DELETIONS_AT_ONCE = 8;

/** What a run's deletion still has to remove besides its object's storage (stored: checked when read). */
/** What a child-run tool's `ToolInvoked` payload must hold to name a child run. */
const InvokedChildTool = z.object({ tool: z.string(), step_id: z.string(), attempt: z.number().int() });

const DeletionNoteSchema = z.object({
  run_id: z.string(),
  /** Plan versions 1..versions: their KV copies. */
  versions: z.number().int().min(0),
  /** The run's plans: planning attempts filed under a plan before attempts named their run. */
  plan_ids: z.array(z.string()),
  /** Attempts of a planning that failed, named by the run's error (their rows name no plan). */
  attempt_ids: z.array(z.string()),
  /** The run's child runs (agent.dispatch, sub-plans, plan.execute), by id. */
  children: z.array(z.string()),
  /** A forced deletion (the run could not be read): its child runs are deleted by force too. */
  force: z.literal(true).optional(),
});
export type DeletionNote = z.infer<typeof DeletionNoteSchema>;

/** What a deletion removed: the run and every child run (at any depth). */
export type DeletedRun = { run_id: string; child_runs: string[] };

/** The tools whose attempts start a child run (src/durable/runtime-tools.ts). */
const CHILD_RUN_TOOLS = [CHILD_RUN_ACTION, 'plan.execute'];

/** The note for a run about to be deleted, from its state and its object's rows. */
export function deletionNote(state: RunState, store: SqlStore): Promise<DeletionNote> {
  return noteFrom(state.run_id, state.error?.details, store);
}

/**
 * The note for a run whose state this release cannot read, deleted by force: from the plain columns of
 * its plans and attempts (no stored state is parsed), and the planning trace of the run's error when
 * its row can still be made out as JSON.
 */
export async function forcedNote(runId: string, store: SqlStore): Promise<DeletionNote> {
  let details: unknown;
  try {
    const run = store.getMetaValue('run');
    details = (run.value as { error?: { details?: unknown } | null } | null | undefined)?.error?.details;
  } catch {
    // Not JSON: its failed planning's attempts are found by run id alone (deleteRows).
  }
  return { ...(await noteFrom(runId, details, store)), force: true };
}

async function noteFrom(runId: string, errorDetails: unknown, store: SqlStore): Promise<DeletionNote> {
  const plans = store.listPlans();
  const children = await Promise.all(childAttempts(store).map((a) => childRunId({ run_id: runId, ...a })));
  return {
    run_id: runId,
    versions: plans.reduce((n, p) => Math.max(n, p.version), 0),
    plan_ids: [...new Set(plans.map((p) => p.plan_id))],
    attempt_ids: failedPlanningAttempts(errorDetails),
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
  const once = new Map<string, { step_id: string; attempt: number }>();
  for (const a of [...store.attempts.ofActions(CHILD_RUN_TOOLS), ...invokedChildTools(store)])
    if (!once.has(`${a.step_id}#${a.attempt}`)) once.set(`${a.step_id}#${a.attempt}`, a);
  return [...once.values()];
}

/** The `ToolInvoked` events of a child-run tool; those that cannot be read (a forced delete) are skipped. */
function invokedChildTools(store: SqlStore): { step_id: string; attempt: number }[] {
  let events: unknown[];
  try {
    events = store.events.ofType('ToolInvoked');
  } catch {
    return []; // storage this release cannot read: the attempts' rows are what is known
  }
  return events.flatMap((e) => {
    const r = InvokedChildTool.safeParse((e as { payload?: unknown } | null)?.payload);
    return r.success && CHILD_RUN_TOOLS.includes(r.data.tool)
      ? [{ step_id: r.data.step_id, attempt: r.data.attempt }]
      : [];
  });
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
    const r = DeletionNoteSchema.safeParse(JSON.parse(text));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

/**
 * Deletes the child runs, {@link CHILD_DELETIONS_AT_ONCE} at a time (each with its own children,
 * cancelled first if still going: its parent has ended, so nothing waits for its result; `force`: one
 * this release cannot read is deleted by force). Every child is tried; then this throws if one could
 * not be deleted, naming each. The ids deleted, each child followed by its own, in the children's order.
 */
export async function deleteChildren(env: Env, ids: readonly string[], force = false): Promise<string[]> {
  const opts = force ? { cascade: true, force } : { cascade: true };
  const outcomes = await settleBounded(ids, CHILD_DELETIONS_AT_ONCE, async (id) => {
    const r = await runObject(env.PLAN_RUN, id).deleteRun(opts);
    if (r.ok) return [id, ...r.value.child_runs];
    if (r.error.code === 'run_not_found') return [];
    throw new Error(r.error.message);
  });
  const failed = outcomes.flatMap((o, i) =>
    o.status === 'rejected'
      ? [`child run ${ids[i]}: ${o.reason instanceof Error ? o.reason.message : String(o.reason)}`]
      : [],
  );
  if (failed.length > 0) throw new Error(failed.join('; '));
  return outcomes.flatMap((o) => (o.status === 'fulfilled' ? o.value : []));
}

const kvKey = (runId: string, version: number) => `plan:${runId}:v${version}`;

/**
 * The run's D1 rows and KV entries. D1 in one batch (a transaction); KV after it, so a plan version
 * read meanwhile cannot put back a copy from a row that is still there. At most `kvDeletes` copies,
 * the latest versions first (each is a call of the invocation's: subrequest-budget.ts); the number of
 * versions whose copies are still to delete is answered.
 */
export async function deleteRows(env: Env, note: DeletionNote, kvDeletes = Infinity): Promise<number> {
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
  const n = Math.max(0, Math.min(note.versions, kvDeletes));
  const keys = Array.from({ length: n }, (_, i) => kvKey(note.run_id, note.versions - i));
  await Promise.all(keys.map((k) => env.KV.delete(k)));
  return note.versions - n;
}

/** The run's plan versions and index row (after its planning attempts, found by the versions' plans). */
function indexedRows(db: D1Database, runId: string): D1PreparedStatement[] {
  return [
    db.prepare('DELETE FROM plan_versions WHERE run_id = ?').bind(runId),
    db.prepare('DELETE FROM runs WHERE run_id = ?').bind(runId),
  ];
}

/** A `plan_versions` row's version, as {@link deleteIndexedRun} reads it. */
const VersionRow = z.object({ version: z.number().int() });

/**
 * A run D1 still knows but whose object has nothing (a deletion that lost its note, or an index row
 * written for an object that never kept the run): its D1 rows and KV entries. Whether there were any.
 */
export async function deleteIndexedRun(env: Env, runId: string): Promise<boolean> {
  const db = env.DB;
  const { results } = await db
    .prepare('SELECT version FROM plan_versions WHERE run_id = ?')
    .bind(runId)
    .all();
  // Only to name the KV copies to delete (the listing below finds them too): a row whose version
  // does not read as one names none, and the deletion goes on.
  const versionNumbers = results.flatMap((r) => {
    const v = VersionRow.safeParse(r);
    return v.success ? [v.data.version] : [];
  });
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
  const keys = new Set([...versionNumbers.map((v) => kvKey(runId, v)), ...listed.keys.map((k) => k.name)]);
  await Promise.all([...keys].map((k) => env.KV.delete(k)));
  const changed = [attempts, versions, row].reduce((n, r) => n + (r?.meta.changes ?? 0), 0);
  return changed > 0 || keys.size > 0;
}
