/**
 * The run's rows in D1 — its index row (`GET /v1/runs`) and its plan versions — written by its object
 * after the decisions that change them. The object stays the source of truth: a write that fails is
 * logged, and the rows are made whole again when an instance next loads the run ({@link resync}).
 * While a write is {@link IndexWriter.owed} the object keeps an alarm armed, so a write lost with its
 * instance (killed between the commit and the D1 batch) or refused by D1 is made good by the alarm
 * even when nothing reads the run again — a run that ended just before a crash is listed as ended.
 *
 * A new run's first write waits up to {@link FIRST_WRITE_DELAY_MS} for the next one: a short run
 * then ends with one D1 batch instead of two. Under `wrangler dev` D1 work was the largest single cost
 * of a run (a third of the isolate's time for a chain of 200 instant steps, a sixth in a burst of
 * small runs); D1's single writer is also what bounds runs per second in production (docs/scaling.md).
 */
import { z } from 'zod';
import type { ParentRef } from '../engine/child-run';
import type { RunEvent } from '../engine/events';
import type { RunState } from '../engine/state';
import type { Plan } from '../plan/model';
import { knownReason, planVersionStatement } from './plan-versions';
import { indexRunStatement } from './run-index';
import { log } from '../log';

/** How long a new run's index row and first plan version may wait to be written with the next change. */
export const FIRST_WRITE_DELAY_MS = 250;

type PendingVersion = { plan: Plan; reason: string | null; at: string };

export type IndexHost = {
  db: () => D1Database;
  waitUntil: (p: Promise<unknown>) => void;
  state: () => RunState;
  /** A plan version as the object stored it (for {@link IndexWriter.resync}). */
  plan: (version: number) => Plan | null;
  /** A child run's parent attempt (run-parent.ts); null for a run no step started. */
  parent: () => ParentRef | null;
  /** Nothing is owed to D1 any more (the alarm kept for it can go). */
  settled?: () => void;
  /**
   * A resync failed: something is owed that no alarm may be kept for yet — a new instance resyncs in
   * the background, after its alarm or request has armed the alarm for what else is due (nothing, for
   * an ended run), so the alarm for the retry is armed here.
   */
  owed?: () => void;
};

export class IndexWriter {
  #rowChanged = false;
  #versions: PendingVersion[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** A {@link resync} under way: later writes go after it, so an older row never lands last. */
  #resyncing: Promise<void> | null = null;
  #owed = false;
  /** The batch on its way to D1, if any (see {@link close}). */
  #writing: Promise<unknown> | null = null;
  #closed = false;

  constructor(private readonly host: IndexHost) {}

  /** Rows the object changed that D1 may not have yet (a write is waiting, under way or failed). */
  get owed(): boolean {
    return this.#owed;
  }

  /**
   * After a decision: the index row when the status changed (`statusChanged`) or a plan version was
   * authored (the row names the plan), and the plan versions its events authored. `defer` (a new run's first decision) lets them wait for the next decision that
   * writes something; decisions that change neither (a chain's step results) do not flush them.
   */
  async record(events: readonly RunEvent[], statusChanged: boolean, defer = false): Promise<void> {
    if (!this.note(events, statusChanged)) return;
    return this.write(defer);
  }

  /**
   * The first half of {@link record}, synchronous: takes note of what the decision changed and says
   * whether something is owed to D1 now, so the caller can arm its alarm before writing.
   */
  note(events: readonly RunEvent[], statusChanged: boolean): boolean {
    let changed = statusChanged;
    if (statusChanged) this.#rowChanged = true;
    for (const e of events) {
      if (e.event_type === 'PlanAuthored' || e.event_type === 'PlanUpdated') {
        // The index row names the plan (its id, version and step count), not only the status.
        this.#rowChanged = true;
        const reason = e.event_type === 'PlanUpdated' ? e.payload.reason : 'authored';
        this.#versions.push({ plan: e.payload.plan, reason, at: e.timestamp });
        changed = true;
      }
    }
    if (changed) this.#owed = true;
    return changed;
  }

  /** The second half of {@link record}: writes now, or (`defer`) with the next change. */
  async write(defer = false): Promise<void> {
    if (!defer) return this.flush();
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.host.waitUntil(this.flush());
    }, FIRST_WRITE_DELAY_MS);
  }

  /** Writes what is waiting, in one batch. */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#resyncing) await this.#resyncing;
    if (this.#closed) return;
    const db = this.host.db();
    const state = this.host.state();
    const writes: D1PreparedStatement[] = [];
    if (this.#rowChanged) writes.push(indexRunStatement(db, state, this.host.parent()));
    for (const v of this.#versions)
      writes.push(planVersionStatement(db, state.run_id, v.plan, v.reason, v.at));
    this.#rowChanged = false;
    this.#versions = [];
    if (writes.length === 0) return;
    try {
      await (this.#writing = db.batch(writes));
      this.#settled();
    } catch (err) {
      log(
        'run_index_not_recorded',
        `run ${state.run_id}: index or plan versions not recorded (${state.status})`,
        {
          run_id: state.run_id,
          error: err,
        },
      );
    } finally {
      this.#writing = null;
    }
  }

  /**
   * The run is being deleted: nothing more is written, and what is already on its way has landed when
   * this resolves — so the deletion of the rows comes after it, and no write brings them back.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#owed = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await Promise.allSettled([this.#resyncing, this.#writing]);
  }

  /** D1 has everything written so far: nothing owed unless another write started meanwhile. */
  #settled(): void {
    if (!this.#owed || this.#rowChanged || this.#versions.length > 0 || this.#timer !== undefined) return;
    this.#owed = false;
    this.host.settled?.();
  }

  /**
   * A new instance took the run over: its predecessor may have died before a write it owed (or a write
   * failed). The index row is written again if D1's differs, and every plan version D1 lacks.
   */
  resync(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#resyncing = this.#resync().finally(() => (this.#resyncing = null));
    return this.#resyncing;
  }

  async #resync(): Promise<void> {
    const db = this.host.db();
    const state = this.host.state();
    try {
      const [row, versions] = await db.batch([
        db
          .prepare(
            `SELECT status, plan_id, plan_version, step_count, termination_reason, parent_run_id, parent_step_id
               FROM runs WHERE run_id = ?`,
          )
          .bind(state.run_id),
        db.prepare('SELECT version FROM plan_versions WHERE run_id = ?').bind(state.run_id),
      ]);
      // A row that does not read as one (another release's) is as good as none: written again.
      const read = IndexedRowSchema.safeParse(row?.results[0]);
      const indexed = read.success ? read.data : undefined;
      const have = new Set(
        versions?.results.flatMap((r) => VersionRowSchema.safeParse(r).data?.version ?? []),
      );
      const parent = this.host.parent();
      // Only what differs is written: a read of an idle run wakes its object, and should not cost D1 a write.
      const writes: D1PreparedStatement[] = [];
      if (!indexedAsIs(indexed, state, parent)) writes.push(indexRunStatement(db, state, parent));
      // A version authored while this read was under way (the request that woke the object approved a
      // changed plan, say) is written by the flush that waits for this resync, with its reason and
      // time: written here first, D1 would keep it without either (it keeps the first row it gets).
      const pending = new Set(this.#versions.map((p) => p.plan.version));
      for (let v = 1; v <= (state.plan?.version ?? 0); v++) {
        // A plan still streaming in is not a version yet (D1 keeps the first row it gets for one).
        if (have.has(v) || pending.has(v) || (state.streaming && v === state.plan?.version)) continue;
        const plan = this.host.plan(v);
        if (plan) writes.push(planVersionStatement(db, state.run_id, plan, knownReason(v), plan.created_at));
      }
      if (writes.length > 0) await db.batch(writes);
      this.#settled();
    } catch (err) {
      // Owed until a resync gets through: the object's alarm tries again.
      this.#owed = true;
      this.host.owed?.();
      log('run_index_not_resynced', `run ${state.run_id}: index not resynchronised`, {
        run_id: state.run_id,
        error: err,
      });
    }
  }
}

/** What {@link IndexWriter} compares of D1's index row (run-index.ts writes it). */
const IndexedRowSchema = z.object({
  status: z.string(),
  plan_id: z.string().nullable(),
  plan_version: z.number().nullable(),
  step_count: z.number(),
  // Null in rows written before migration 0003.
  termination_reason: z.string().nullable(),
  // Null in rows written before migration 0007, and for a run no step started.
  parent_run_id: z.string().nullable(),
  parent_step_id: z.string().nullable(),
});
type IndexedRow = z.infer<typeof IndexedRowSchema>;

const VersionRowSchema = z.object({ version: z.number().int() });

/**
 * Whether D1's index row says what the run's state says. A row an earlier release wrote may differ in
 * more than its status: a streamed plan's first step listed under the stream's own plan id with one
 * step, a version written without its row, no termination_reason (migration 0003 came later), a
 * child run with no parent (migration 0007 came later).
 */
function indexedAsIs(row: IndexedRow | undefined, state: RunState, parent: ParentRef | null): boolean {
  return (
    row !== undefined &&
    row.status === state.status &&
    row.plan_id === (state.plan?.id ?? null) &&
    row.plan_version === (state.plan?.version ?? null) &&
    row.step_count === state.steps.size &&
    row.termination_reason === (state.termination_reason ?? null) &&
    row.parent_run_id === (parent?.run_id ?? null) &&
    row.parent_step_id === (parent?.step_id ?? null)
  );
}
