/**
 * The run as one PlanRun instance holds it: its machine, loaded from SQLite once, and the parts that
 * carry the machine's commands out. Every input goes through one loop — decide and persist in one
 * transaction (decision-commit.ts), then act: ready steps to the `steps` queue (or inline), side work
 * started, events broadcast, the one alarm re-armed to the earliest deadline, the run index written.
 * plan-run.ts is the object's entry points; they reach the run only through this.
 */
import { RunMachine, type MachineInput, type Refusal } from '../engine/machine';
import { emptyRunState, type RunState } from '../engine/state';
import type { ParentRef } from '../engine/child-run';
import type { ToolRegistry } from '../executor/registry';
import type { Plan, RunStatus } from '../plan/model';
import { beginAttempt, type BeginStep } from './begin-attempt';
import { load } from './persist';
import { commitDecision, type CommitOptions, type CommitParts, type Committed } from './decision-commit';
import { DurableSideWork, type RowAfter } from './side-work';
import { SideWorkJournal, type SideRow } from './side-work-journal';
import { Leases } from './leases';
import { SqlStore } from './sql-store';
import { createRunTables } from './run-schema';
import { FORMAT_KEY, formatFor, STORAGE_FORMAT, upgradeStorage } from './storage-format';
import { IndexWriter } from './index-writer';
import { hasParent, readParent, writeParent } from './run-parent';
import { TreeChildRuns } from './child-run-limits';
import { writeFingerprint } from './request-fingerprint';
import { sendSteps } from './fan-out';
import { Alarm } from './alarm';
import { InlineAttempts, type InlineHost } from './inline-attempts';
import { broadcast } from './sockets';
import { retentionMs } from './retention';
import { STOP_PLANNING_MS } from '../engine/side-work';
import { RunDeleter } from './run-deleter';
import { ExpiredLeases } from './expired-leases';
import { machineDeps } from './machine-deps';
import { wakeAt } from './wake-time';
import { parsePlanRow } from './row-schemas';
import type { StepMessage } from './messages';
import type { RpcResult } from './rpc-result';
import type { CreateRunRequest } from './run-requests';
import { DecisionFault } from './decision-fault';
import { log } from '../log';

/** What a decision's fault asks of whoever reads it. */
const REPORT =
  'Its events so far are kept (GET /v1/runs/<id>/events); the error is logged as decision_failed — report it with the plan';

/**
 * What the driver asks of its object. `env` is read when needed, not kept: the object's bindings are
 * the ones it has then.
 */
export type DriverHost = Pick<InlineHost, 'complete' | 'awaitInput'> & {
  env: () => Env;
  /** The run's tools, built once per instance (the object's `createToolRegistry`). */
  tools: () => ToolRegistry;
};

export class RunDriver {
  readonly store: SqlStore;
  readonly inline: InlineAttempts;
  readonly alarm: Alarm;
  readonly journal: SideWorkJournal;
  readonly side: DurableSideWork;
  readonly index: IndexWriter;
  /** Queue attempts whose lease ran out: sent again, or carried out here (expired-leases.ts). */
  readonly expired: ExpiredLeases;
  /** The run's deletion (run-deleter.ts), lent only what it needs. */
  readonly deleter: RunDeleter;
  /** Leases on queue-dispatched attempts. */
  readonly leases: Leases;
  /** The child runs this run's tree has started, counted here when this run is the tree's root. */
  readonly treeChildRuns: TreeChildRuns;
  readonly #ctx: DurableObjectState;
  readonly #host: DriverHost;
  readonly #commitParts: CommitParts;
  #machine: RunMachine | null = null;
  #tools: ToolRegistry | null = null;
  /** A child run's parent step, which it reports to; null for a run no step started (read once). */
  #parent: ParentRef | null | undefined;

  constructor(ctx: DurableObjectState, env: Env, host: DriverHost) {
    this.#ctx = ctx;
    this.#host = host;
    this.store = new SqlStore(ctx.storage.sql, { createTables: false });
    this.alarm = new Alarm(ctx.storage);
    this.journal = new SideWorkJournal(ctx.storage.sql);
    this.leases = new Leases(ctx.storage.sql);
    this.treeChildRuns = new TreeChildRuns(ctx.storage.sql);
    this.index = new IndexWriter({
      db: () => env.DB,
      waitUntil: (p) => ctx.waitUntil(p),
      state: () => this.load()!.state,
      plan: (version) => this.storedPlan(version),
      parent: () => this.parentRef(),
      // The alarm kept for the write can go (or move to what else is due).
      settled: () => ctx.waitUntil(this.arm(this.#machine, true)),
      // A failed resync keeps an alarm for the next try (index-writer.ts says why it must be armed here).
      owed: () => ctx.waitUntil(this.arm(this.#machine)),
    });
    this.side = new DurableSideWork({
      ctx,
      env,
      store: this.store,
      journal: this.journal,
      tools: () => this.registry(),
      state: () => this.load()?.state ?? null,
      answer: (row, inputs, after) => this.#answer(row, inputs, after),
    });
    this.#commitParts = {
      storage: ctx.storage,
      store: this.store,
      journal: this.journal,
      leases: this.leases,
      begin: (stepId, attempt, pending) => this.begin(this.#machine!, stepId, attempt, pending),
      // Whether there is a parent row, not what it says: a commit must not fail on a row it need not read.
      hasParent: () => (this.#parent === undefined ? hasParent(this.store) : this.#parent !== null),
    };
    this.inline = new InlineAttempts({
      ctx,
      env,
      tools: () => this.registry(),
      begin: (stepId, attempt) => this.begin(this.#machine!, stepId, attempt, []),
      complete: (reports) => host.complete(reports),
      awaitInput: (stepId, attempt, prompt, schema) => host.awaitInput(stepId, attempt, prompt, schema),
    });
    this.expired = new ExpiredLeases({
      steps: () => host.env().STEPS,
      waitUntil: (p) => ctx.waitUntil(p),
      store: this.store,
      leases: this.leases,
    });
    this.deleter = new RunDeleter({
      env: host.env,
      storage: ctx.storage,
      store: this.store,
      alarm: this.alarm,
      runId: () => ctx.id.name,
      load: () => this.load(),
      cancel: (reason) => this.control({ type: 'cancel', reason }),
      release: () => this.#release(),
    });
  }

  /** The run's machine as last loaded, or null before it is (or after a rollback or a deletion). */
  get machine(): RunMachine | null {
    return this.#machine;
  }

  /**
   * Makes a new run's tables and machine, in this turn with the run's first transaction (one commit
   * for the new object), then applies its `create` input. `outbox` takes the first steps to queue.
   */
  async start(
    req: CreateRunRequest,
    create: MachineInput,
    outbox: StepMessage[],
  ): Promise<Refusal | undefined> {
    createRunTables(this.#ctx.storage.sql, {
      store: this.store,
      journal: this.journal,
      leases: this.leases,
    });
    // A run whose config an older release would read wrong carries a format that release refuses.
    const format = formatFor(req.config);
    if (format !== this.store.format) {
      this.store.setMeta(FORMAT_KEY, String(format));
      this.store.upgraded(format);
    }
    this.#machine = this.#newMachine(emptyRunState(req.run_id, req.config));
    this.alarm.fresh();
    if (req.origin) this.store.setMeta('origin', req.origin);
    if (req.fingerprint) writeFingerprint(this.store, req.fingerprint);
    if (req.parent) writeParent(this.store, req.parent);
    this.#parent = req.parent ?? null;
    return this.apply([create], { outbox, faults: 'throw' });
  }

  /**
   * A create whose decision threw (decision-fault.ts) leaves nothing behind: the tables and rows
   * `start` wrote before it are removed (the decision's own transaction was rolled back), so a read of
   * the id finds no run and a new create starts over. The object takes a fresh driver after this.
   */
  async undoStart(): Promise<void> {
    this.#machine = null;
    await this.#ctx.storage.deleteAll();
  }

  /**
   * A plan version from the object's rows, read through the plan's row schema: one that does not
   * fit throws the `run_unreadable` error naming it (the run's latest is read so by `load`).
   */
  storedPlan(version: number): Plan | null {
    const stored = this.store.getPlan(version);
    return stored === null ? null : parsePlanRow(stored);
  }

  /** The run's parent attempt (run-parent.ts), read once per instance: it never changes. */
  parentRef(): ParentRef | null {
    if (this.#parent === undefined) this.#parent = readParent(this.store);
    return this.#parent;
  }

  load(): RunMachine | null {
    if (this.#machine) return this.#machine;
    if (this.deleter.deleted || !this.store.exists) return null;
    // An object an earlier release wrote is brought up to date first; one a newer release wrote (a
    // rollback) is refused before anything reads its rows as this release's (storage-format.ts).
    this.upgrade();
    const state = load(this.store);
    if (!state) return null;
    this.#machine = this.#newMachine(state);
    // A new instance: what the last one owed D1 may never have been written.
    this.#ctx.waitUntil(this.index.resync());
    // An ended run from before RUN_RETENTION_DAYS was set gets its alarm when it is next woken.
    if (state.completed_at !== null && retentionMs(this.#host.env()) !== null)
      this.#ctx.waitUntil(this.arm(this.#machine));
    return this.#machine;
  }

  #newMachine(state: RunState): RunMachine {
    const deps = machineDeps(
      this.#host.env(),
      this.store,
      () => this.registry(),
      () => this.expired.bypassed(),
    );
    return new RunMachine(state, deps);
  }

  /** Brings the tables to this release's storage format, or throws for a newer one (nothing read). */
  upgrade(): void {
    const format = this.store.format;
    if (format === STORAGE_FORMAT) return;
    this.store.upgraded(
      upgradeStorage(this.#ctx.storage, format, this.#ctx.id.name ?? this.#ctx.id.toString()),
    );
  }

  registry(): ToolRegistry {
    this.#tools ??= this.#host.tools();
    return this.#tools;
  }

  /**
   * One input from an entry point; its refusal, or the run's status once it is applied. A decision
   * that threw is answered (`decision_failed`, naming the error) with the run as it was before.
   */
  async control(input: MachineInput): Promise<RpcResult<{ status: RunStatus }>> {
    const m = this.load();
    if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
    let refused: Refusal | undefined;
    // Planning stopped first: the calls a cut stream made are counted when the cancel ends the run.
    if (input.type === 'cancel') await this.side.stopPlanning('the run is being cancelled', STOP_PLANNING_MS);
    try {
      refused = await this.apply([input], { faults: 'throw' });
    } catch (err) {
      if (!(err instanceof DecisionFault)) throw err;
      const message = `${err.message}; nothing of the request was applied and the run is as it was. ${REPORT}`;
      return { ok: false, error: { code: 'decision_failed', message } };
    }
    if (refused) return { ok: false, error: refused };
    return { ok: true, value: { status: m.state.status } };
  }

  /** A side-work answer: applied with its row settled in one transaction, if the row still wants it. */
  async #answer(row: SideRow, inputs: MachineInput[], after: RowAfter): Promise<void> {
    if (!this.load()) return;
    await this.apply(inputs, { answer: { row, after } });
  }

  /**
   * Decide and persist (decision-commit.ts), then broadcast, re-arm and act — in that order, so nothing
   * acts on unsaved state. `extra` adds inputs computed against the live machine; `outbox` (a new run)
   * takes the steps to queue for the caller to send. A decision that throws (decision-fault.ts) is
   * thrown to the caller with `faults: 'throw'` (a request, a create); by default it is the run's own
   * work that threw, which the object would meet again on every wake, and the run fails with its error.
   */
  async apply(
    inputs: MachineInput[],
    opts: CommitOptions & { outbox?: StepMessage[]; faults?: 'throw' | 'fail_run' } = {},
  ): Promise<Refusal | undefined> {
    const m = this.#machine!;
    const statusBefore = m.state.status;
    const { outbox, answer } = opts;
    let committed: Committed | null;
    try {
      committed = commitDecision(this.#commitParts, m, inputs, opts, Date.now());
    } catch (err) {
      // Rolled back: what is in memory may be ahead of storage, so reload it from storage next time.
      this.#machine = null;
      this.store.forgetCached();
      this.journal.forgetCached();
      this.leases.forget();
      if (!(err instanceof DecisionFault) || opts.faults === 'throw') throw err;
      await this.#failRun(err);
      return;
    }
    if (!committed) return;
    const { decided, queued, inline, rows } = committed;
    if (decided.refused) return decided.refused;
    const events = decided.events;
    if (events.length === 0 && rows.length === 0) {
      if (answer) await this.arm(m);
      return;
    }
    // Work first (it is saved now), bookkeeping after: the alarm and the run index can wait a moment.
    if (outbox) outbox.push(...queued);
    // Fanned out without holding up the caller: a consumer reporting the results that made these steps
    // ready returns at once, which frees the queue to deliver them sooner.
    else if (queued.length > 0) this.#ctx.waitUntil(sendSteps(this.#host.env().STEPS, queued));
    if (decided.abort !== null) this.inline.abortAll(decided.abort);
    if (events.some((e) => e.event_type === 'RunTerminated')) this.side.abortAll('the run ended');
    for (const i of inline) this.inline.start(m.state.run_id, i.stepId, i.attempt, i.begin);
    for (const row of rows) this.side.start(row);
    broadcast(this.#ctx, events);
    // The D1 index and plan versions: awaited, so a read right after sees them — except for a new run,
    // whose first steps (in `outbox`) must not wait on D1, and whose first write waits for its next.
    // Noted before the alarm is armed, which then covers the write until D1 has it.
    const created = outbox !== undefined;
    const owed = this.index.note(events, created || m.state.status !== statusBefore);
    await this.arm(m);
    if (owed) await this.index.write(created);
  }

  /** Ends the run `failed` with the fault's error, on the state as storage has it (thrown if that throws too). */
  async #failRun(fault: DecisionFault): Promise<void> {
    if (!this.load()) return;
    log('decision_failed', fault.message, {
      run_id: this.#ctx.id.name,
      code: 'decision_failed',
      error: fault.cause,
    });
    const message = `${fault.message}; the run was failed rather than deciding the same again on every wake. ${REPORT}`;
    await this.apply([{ type: 'fault', error: { code: 'decision_failed', message, retryable: false } }], {
      faults: 'throw',
    });
  }

  /** The run was hidden for its deletion: forgotten here, and all this instance did for it stopped. */
  async #release(): Promise<void> {
    this.#machine = null;
    this.inline.abortAll('the run was deleted');
    this.side.abortAll('the run was deleted');
    for (const ws of this.#ctx.getWebSockets()) ws.close(1000, 'run deleted');
    await this.index.close();
  }

  begin(m: RunMachine, stepId: string, attempt: number, pending: MachineInput[]): BeginStep {
    return beginAttempt(m, this.store, this.registry(), stepId, attempt, pending);
  }

  /**
   * The next time the object must wake: a retry or deadline, or a check on inline attempts that an
   * eviction may have lost.
   */
  async arm(m: RunMachine | null, exactly = false): Promise<void> {
    // A machine no longer current (the run was deleted meanwhile) has nothing to wake for.
    if (!m || m !== this.#machine) return;
    const at = wakeAt(
      m,
      {
        side: this.side,
        leases: this.leases,
        index: this.index,
        inline: this.inline,
        retentionMs: () => retentionMs(this.#host.env()),
      },
      Date.now(),
    );
    await (exactly ? this.alarm.to(at) : this.alarm.by(at));
  }
}
