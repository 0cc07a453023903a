/**
 * PlanRun: one Durable Object per run (`env.PLAN_RUN.getByName(runId)`). It owns the run's state and
 * event log in SQLite, feeds every input through the run machine, persists the resulting events in
 * one transaction, then carries the commands out: ready steps to the `steps` queue (or inline for
 * sequential plans), one alarm re-armed to the earliest deadline, events to WebSocket clients.
 *
 * This file is the object's entry points (RPC, fetch, alarm) and that decide-persist-act loop; the
 * parts with a job of their own are beside it: the run's deletion (run-deleter.ts), queue attempts
 * whose lease ran out (expired-leases.ts), when to wake next (wake-time.ts), what the machine is given
 * (machine-deps.ts), and the WebSocket answers (sockets.ts).
 */
import { DurableObject } from 'cloudflare:workers';
import { RunMachine, type MachineInput, type Refusal, type StepOutcome } from '../engine/machine';
import { replay, snapshotRun } from '../engine/snapshot';
import { planStatus, type PlanStatusView } from '../engine/status-view';
import { emptyRunState, type RunState } from '../engine/state';
import { beginAttempt, type BeginStep } from './begin-attempt';
import { loadMcpTools } from '../mcp/worker-tools';
import { workerToolRegistry } from './tools';
import type { ToolRegistry } from '../executor/registry';
import { load } from './persist';
import { commitDecision, type CommitOptions, type CommitParts, type Committed } from './decision-commit';
import { DurableSideWork, type RowAfter } from './side-work';
import { SideWorkJournal, type SideRow } from './side-work-journal';
import { Leases } from './leases';
import { approvalInput, approvalView, rollbackInput, type ApprovalView } from './approval';
import { PLANNER_NEEDED, plannerConfigured } from './planner-config';
import { TERMINAL_RUN_STATUSES, type Plan, type RunStatus } from '../plan/model';
import { SqlStore } from './sql-store';
import { createRunTables } from './run-schema';
import {
  isNewerFormatRun,
  NEWER_FORMAT_RETRY_AFTER_S,
  STORAGE_FORMAT,
  upgradeStorage,
} from './storage-format';
import { IndexWriter } from './index-writer';
import { hasParent, parentFields, readParent, writeParent, type ParentFields } from './run-parent';
import type { ParentRef } from '../engine/child-run';
import { knownReason, type PlanVersionRow } from './plan-versions';
import { sendSteps } from './fan-out';
import { Alarm } from './alarm';
import { InlineAttempts } from './inline-attempts';
import { answerClientFrame, broadcast, closeClientSocket, eventSocketResponse } from './sockets';
import { CallBudget, Handoff } from './call-limits';
import { rememberPlanText } from './plan-text';
import {
  eventsPage,
  memoryBudget,
  readValue,
  servedSnapshot,
  storeBudget,
  type EventsPage,
  type ServedSnapshot,
} from './run-reads';
import type { StepMessage } from './messages';
import type { RpcResult } from './rpc-result';
import type { Continuation, CreateRunRequest } from './run-requests';
import { retentionDueAt, retentionMs } from './retention';
import type { DeletedRun } from './run-deletion';
import { RunDeleter, type DeleteOptions } from './run-deleter';
import { ExpiredLeases } from './expired-leases';
import { machineDeps } from './machine-deps';
import { wakeAt } from './wake-time';
import { parsePlanRow, sentPlan } from './row-schemas';
import { log } from '../log';

export type { BeginStep } from './begin-attempt';
export type { RpcResult } from './rpc-result';
export type { DeletedRun } from './run-deletion';
export type { Continuation, CreateRunRequest } from './run-requests';

/**
 * The plan version still streaming in, if any: stored as it grows (so a restart does not run its steps
 * again) but not a version yet — listing or caching it would show a plan its run has not authored.
 */
function streamingVersion(m: RunMachine): number | undefined {
  return m.state.streaming ? m.state.plan?.version : undefined;
}

export class PlanRun extends DurableObject<Env> {
  readonly #store: SqlStore;
  #machine: RunMachine | null = null;
  #tools: ToolRegistry | null = null;
  readonly #inline: InlineAttempts;
  readonly #alarm: Alarm;
  readonly #journal: SideWorkJournal;
  readonly #side: DurableSideWork;
  readonly #index: IndexWriter;
  /** A child run's parent step, which it reports to; null for a run no step started (read once). */
  #parent: ParentRef | null | undefined;
  /** Queue attempts whose lease ran out: sent again, or carried out here (expired-leases.ts). */
  readonly #expired: ExpiredLeases;
  readonly #commitParts: CommitParts;
  /** The run's deletion (run-deleter.ts), lent only what it needs. */
  readonly #deleter: RunDeleter;
  /** Leases on queue-dispatched attempts (public for tests, which shorten them). */
  readonly leases: Leases;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // MCP_SERVERS tools join the registry before the object handles anything (listings are KV-cached).
    // Without servers there is nothing to wait for, and a new run's object starts a turn sooner.
    if (env.MCP_SERVERS) void ctx.blockConcurrencyWhile(() => loadMcpTools(env));
    this.#store = new SqlStore(ctx.storage.sql, { createTables: false });
    this.#alarm = new Alarm(ctx.storage);
    this.#journal = new SideWorkJournal(ctx.storage.sql);
    this.leases = new Leases(ctx.storage.sql);
    this.#index = new IndexWriter({
      db: () => env.DB,
      waitUntil: (p) => ctx.waitUntil(p),
      state: () => this.#load()!.state,
      plan: (version) => this.#storedPlan(version),
      parent: () => this.#parentRef(),
      // The alarm kept for the write can go (or move to what else is due).
      settled: () => ctx.waitUntil(this.#arm(this.#machine, true)),
      // A failed resync keeps an alarm for the next try (index-writer.ts says why it must be armed here).
      owed: () => ctx.waitUntil(this.#arm(this.#machine)),
    });
    this.#side = new DurableSideWork({
      ctx,
      env,
      store: this.#store,
      journal: this.#journal,
      tools: () => this.#registry(),
      state: () => this.#load()?.state ?? null,
      answer: (row, inputs, after) => this.#answer(row, inputs, after),
    });
    this.#commitParts = {
      storage: ctx.storage,
      store: this.#store,
      journal: this.#journal,
      leases: this.leases,
      begin: (stepId, attempt, pending) => this.#begin(this.#machine!, stepId, attempt, pending),
      // Whether there is a parent row, not what it says: a commit must not fail on a row it need not read.
      hasParent: () => (this.#parent === undefined ? hasParent(this.#store) : this.#parent !== null),
    };
    this.#inline = new InlineAttempts({
      ctx,
      env,
      tools: () => this.#registry(),
      begin: (stepId, attempt) => this.#begin(this.#machine!, stepId, attempt, []),
      complete: async (reports) => void (await this.completeSteps(reports)),
      awaitInput: (stepId, attempt, prompt) => this.awaitInput(stepId, attempt, prompt),
    });
    this.#expired = new ExpiredLeases({
      steps: () => this.env.STEPS,
      waitUntil: (p) => ctx.waitUntil(p),
      store: this.#store,
      leases: this.leases,
      tools: () => this.#registry(),
    });
    this.#deleter = new RunDeleter({
      env: () => this.env,
      storage: ctx.storage,
      store: this.#store,
      alarm: this.#alarm,
      runId: () => this.ctx.id.name,
      load: () => this.#load(),
      cancel: (reason) => this.#control({ type: 'cancel', reason }),
      release: () => this.#release(),
    });
  }

  // ---- RPC ----------------------------------------------------------------------------------------

  /**
   * Starts a run. The first steps to queue come back in `outbox` for the caller to send: a fresh
   * object's first queue send is slow, and the caller's binding is warm. If the caller never sends
   * them, the steps' deadlines retry them.
   */
  async create(
    req: CreateRunRequest,
  ): Promise<RpcResult<{ run_id: string; status: RunStatus; outbox: StepMessage[] }>> {
    if (this.#load())
      return { ok: false, error: { code: 'run_exists', message: `Run ${req.run_id} already exists` } };
    // A run being deleted keeps its id until its storage is gone: a new run is not made over its rows.
    if (this.#deleter.deleted || this.#deleter.noted())
      return { ok: false, error: { code: 'run_exists', message: `Run ${req.run_id} was deleted` } };
    const { plan_json, ...rest } = req;
    const sent = plan_json === undefined ? null : sentPlan(plan_json);
    // Before anything is written: a plan the object cannot read leaves no run behind.
    if (sent && !sent.ok) return { ok: false, error: { code: 'invalid_plan', message: sent.message } };
    // In this turn, with the run's first transaction: one commit for the new object.
    createRunTables(this.ctx.storage.sql, {
      store: this.#store,
      journal: this.#journal,
      leases: this.leases,
    });
    this.#machine = this.#newMachine(emptyRunState(req.run_id, req.config));
    this.#alarm.fresh();
    if (req.origin) this.#store.setMeta('origin', req.origin);
    if (req.parent) writeParent(this.#store, req.parent);
    this.#parent = req.parent ?? null;
    const outbox: StepMessage[] = [];
    const plan = sent ? sent.plan : req.plan;
    if (sent && plan_json !== undefined) rememberPlanText(sent.plan, plan_json);
    const r = await this.#apply([{ type: 'create', ...rest, ...(plan ? { plan } : {}) }], { outbox });
    if (r) return { ok: false, error: r };
    return { ok: true, value: { run_id: req.run_id, status: this.#machine.state.status, outbox } };
  }

  getRun(): (ServedSnapshot & ParentFields) | null {
    const m = this.#load();
    if (!m) return null;
    const snap = snapshotRun(m.state, this.#store, storeBudget(this.#store, m.state.run_id));
    return { ...servedSnapshot(snap, this.#store), ...parentFields(this.#parentRef()) };
  }

  getStatus(opts: {
    include_details?: boolean;
    include_completed?: boolean;
  }): (PlanStatusView & ParentFields) | null {
    const m = this.#load();
    if (!m) return null;
    const view = planStatus(m.state, this.#store, opts, storeBudget(this.#store, m.state.run_id));
    return { ...view, ...parentFields(this.#parentRef()) };
  }

  /**
   * Deletes the run, which must have ended (`cascade`: a child run of a run being deleted, cancelled
   * first if still going), and everything stored for it (run-deletion.ts). `force`: a run this release
   * cannot read is deleted without reading it (run-deleter.ts). A deletion a crash or an outage
   * interrupted is finished by calling this again, or by the object's alarm.
   */
  async deleteRun(opts: DeleteOptions = {}): Promise<RpcResult<DeletedRun>> {
    return this.#deleter.delete(opts);
  }

  /** A page of the log, bounded by count and bytes (run-reads.ts). */
  listEvents(after: number, limit: number): EventsPage {
    if (this.#store.exists) this.#upgrade();
    return eventsPage(this.#store, after, limit);
  }

  /** One value by reference — where a snapshot's marker for a value it left out points. */
  readValue(ref: string): RpcResult<{ ref: string; value: unknown }> {
    const m = this.#load();
    if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
    return readValue(m.state, this.#store, ref);
  }

  /** The state as of event `at` (or now), rebuilt from the log alone. */
  stateAt(at?: number): (ServedSnapshot & ParentFields) | null {
    if (!this.#load()) return null;
    const r = replay(this.#store.eventStream(0, at));
    const snap = snapshotRun(r.state, r.results, memoryBudget(this.#machine!.state.run_id));
    return { ...servedSnapshot(snap, this.#store), ...parentFields(this.#parentRef()) };
  }

  /** A plan version as the run recorded it (plan-versions.ts reads large ones from here). */
  planVersion(version: number): Plan | null {
    const m = this.#load();
    if (!m || version === streamingVersion(m)) return null;
    return this.#storedPlan(version);
  }

  /**
   * A plan version from the object's rows, read through the plan's row schema: one that does not
   * fit throws the `run_unreadable` error naming it (the run's latest is read so by `load`).
   */
  #storedPlan(version: number): Plan | null {
    const stored = this.#store.getPlan(version);
    return stored === null ? null : parsePlanRow(stored);
  }

  /** The versions the run has had, as its object keeps them (a version's reason is D1's to know). */
  planVersions(): PlanVersionRow[] | null {
    const m = this.#load();
    if (!m) return null;
    const streaming = streamingVersion(m);
    return this.#store
      .listPlans()
      .filter((p) => p.version !== streaming)
      .map((p) => ({ ...p, reason: knownReason(p.version) }));
  }

  attempts(stepId?: string): Record<string, SqlStorageValue>[] {
    if (!this.#store.exists) return [];
    this.#upgrade();
    return this.#store.attempts(stepId);
  }

  async cancel(reason?: string): Promise<RpcResult<{ status: RunStatus }>> {
    return this.#control({ type: 'cancel', reason });
  }

  async retry(stepId?: string): Promise<RpcResult<{ status: RunStatus }>> {
    return this.#control({ type: 'resume', step_id: stepId });
  }

  /**
   * An approver's decision — from an API caller, or with `token` from the single-use approval link.
   * The body is the request's, unchecked: with a token, nothing about it is looked at before the token.
   * A `modify` is validated and becomes the next plan version; findings come back on a bad edit.
   */
  async approve(body: unknown, token?: string): Promise<RpcResult<{ status: RunStatus }>> {
    const m = this.#load();
    if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
    const r = await approvalInput(m.state, this.#store, this.#registry(), body, token);
    return r.ok ? this.#control(r.input) : { ok: false, error: r.refusal };
  }

  /** The approval link's page: the plan, if `token` is this run's live link (nothing is spent). */
  async approvalPage(token: string): Promise<RpcResult<ApprovalView>> {
    const m = this.#load();
    if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
    const r = await approvalView(m.state, this.#store, token);
    return r.ok ? { ok: true, value: r.view } : { ok: false, error: r.refusal };
  }

  /** A new version with the content of an earlier one; completed work is kept. */
  async rollback(version: number): Promise<RpcResult<{ status: RunStatus; plan_version: number }>> {
    const m = this.#load();
    if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
    const r = rollbackInput(m.state, this.#store, this.#registry(), version);
    if (!r.ok) return { ok: false, error: r.refusal };
    const done = await this.#control(r.input);
    // The version the run now has: the new one, or the current one when it already was that plan.
    const now = this.#load()?.state.plan?.version ?? r.input.plan.version;
    return done.ok ? { ok: true, value: { status: done.value.status, plan_version: now } } : done;
  }

  /** A user-requested revision; refused up front when no planner could produce it. */
  async replan(reason: string): Promise<RpcResult<{ status: RunStatus }>> {
    const m = this.#load();
    if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
    // A run that could not be revised anyway is told why (404, 409) before what a revision would need.
    const revisable = m.state.status === 'running' || m.state.status === 'awaiting_input';
    if (revisable && !plannerConfigured(this.env)) {
      return { ok: false, error: { code: 'planning_unavailable', message: PLANNER_NEEDED } };
    }
    return this.#control({ type: 'request_revision', trigger: 'user_request', reason });
  }

  /** New information, or the answer the run waits for. */
  async input(input: unknown, stepId?: string): Promise<RpcResult<{ status: RunStatus }>> {
    return this.#control(
      stepId === undefined ? { type: 'input', input } : { type: 'input', input, step_id: stepId },
    );
  }

  /** A running `human.input` step now waits for a person's answer. */
  async awaitInput(stepId: string, attempt: number, prompt: string): Promise<void> {
    if (!this.#load()) return;
    await this.#apply([{ type: 'await_input', step_id: stepId, attempt, prompt }]);
  }

  /**
   * A consumer asks before running attempts: are they still wanted, and with which parameters? Records
   * `ToolInvoked` once per attempt, for the whole batch in one transaction. A redelivered message for an
   * attempt that has no result yet proceeds again with the same idempotency key, so a tool with side
   * effects can recognise the repeat.
   */
  async beginSteps(
    requests: { step_id: string; attempt: number; redelivered?: boolean }[],
  ): Promise<BeginStep[]> {
    const m = this.#load();
    if (!m) return requests.map(() => ({ proceed: false, reason: 'no such run' }));
    const out: BeginStep[] = [];
    const now = Date.now();
    const reply = new CallBudget();
    await this.#apply([], {
      extra: (inputs) => {
        for (const r of requests) {
          // Carried out in the object since no consumer took it: a delivery now is too late.
          if (m.state.steps.get(r.step_id)?.dispatch === 'inline') {
            out.push({ proceed: false, reason: 'carried out in the run’s object' });
            continue;
          }
          // Another live consumer runs this attempt already (a duplicate send): leave it to that one.
          const held = !this.leases.take(r.step_id, r.attempt, now, r.redelivered === true);
          out.push(
            held
              ? { proceed: false, reason: 'held by another consumer' }
              : reply.fit(this.#begin(m, r.step_id, r.attempt, inputs)),
          );
        }
      },
    });
    return out;
  }

  /** Consumers still running these attempts keep their leases (every third of {@link LEASE_MS}). */
  renewLeases(attempts: { step_id: string; attempt: number }[]): void {
    if (this.#load()) this.leases.renew(attempts, Date.now());
  }

  /**
   * Consumers report outcomes; a duplicate or stale report changes nothing. A consumer with room may
   * `take` steps these results made ready: they come back already begun, to run at once, instead of
   * taking another trip through the queue (the hop costs more than a short step). The rest are queued.
   */
  async completeSteps(
    reports: { step_id: string; attempt: number; outcome: StepOutcome }[],
    take = 0,
  ): Promise<Continuation[]> {
    if (!this.#load()) return [];
    const handoff = new Handoff(take);
    await this.#apply(
      reports.map((r) => ({ type: 'result', step_id: r.step_id, attempt: r.attempt, outcome: r.outcome })),
      { handoff },
    );
    return handoff.taken;
  }

  /** `GET /v1/runs/:id/ws`: the run's events over a WebSocket (sockets.ts). */
  override fetch(request: Request): Response {
    return eventSocketResponse(this.ctx, this.#store, request, () => this.#load() !== null);
  }

  override webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): void {
    answerClientFrame(ws, message);
  }

  override webSocketClose(ws: WebSocket, code: number): void {
    closeClientSocket(ws, code);
  }

  /** Retries due, attempts past their deadline, inline attempts lost to an eviction. */
  override async alarm(): Promise<void> {
    this.#alarm.fired();
    let m: RunMachine | null;
    try {
      m = this.#load();
    } catch (err) {
      if (!isNewerFormatRun(err)) throw err;
      // A rollback: the run waits as the newer release left it. Its alarm is kept (a thrown alarm is
      // retried a few times, then dropped), so once that release is back the run carries on by itself.
      log('run_newer_format', (err as Error).message, { run_id: this.ctx.id.name, code: 'run_newer_format' });
      await this.#alarm.to(Date.now() + NEWER_FORMAT_RETRY_AFTER_S * 1000);
      return;
    }
    // Nothing to run: perhaps what is left of a deletion a crash or an outage interrupted.
    if (!m) return void (await this.deleteRun());
    const now = Date.now();
    const expires = TERMINAL_RUN_STATUSES.has(m.state.status)
      ? retentionDueAt(m.state.completed_at, retentionMs(this.env))
      : null;
    if (expires !== null && expires <= now) return void (await this.deleteRun());
    if (this.#index.owed) await this.#index.resync();
    this.#inline.recover(m.state);
    await this.#side.recover(now);
    // Before the tick: an attempt carried out in the object now is not timed out by it.
    const redispatch = this.#expired.collect(m, now);
    await this.#apply([...redispatch, { type: 'tick' }]);
    await this.#arm(m);
  }

  /** A side-work answer: applied with its row settled in one transaction, if the row still wants it. */
  async #answer(row: SideRow, inputs: MachineInput[], after: RowAfter): Promise<void> {
    if (!this.#load()) return;
    await this.#apply(inputs, { answer: { row, after } });
  }

  // ---- internals ----------------------------------------------------------------------------------

  /** The run's parent attempt (run-parent.ts), read once per instance: it never changes. */
  #parentRef(): ParentRef | null {
    if (this.#parent === undefined) this.#parent = readParent(this.#store);
    return this.#parent;
  }

  #load(): RunMachine | null {
    if (this.#machine) return this.#machine;
    if (this.#deleter.deleted || !this.#store.exists) return null;
    // An object an earlier release wrote is brought up to date first; one a newer release wrote (a
    // rollback) is refused before anything reads its rows as this release's (storage-format.ts).
    this.#upgrade();
    const state = load(this.#store);
    if (!state) return null;
    this.#machine = this.#newMachine(state);
    // A new instance: what the last one owed D1 may never have been written.
    this.ctx.waitUntil(this.#index.resync());
    // An ended run from before RUN_RETENTION_DAYS was set gets its alarm when it is next woken.
    if (state.completed_at !== null && retentionMs(this.env) !== null)
      this.ctx.waitUntil(this.#arm(this.#machine));
    return this.#machine;
  }

  #newMachine(state: RunState): RunMachine {
    const deps = machineDeps(
      this.env,
      this.#store,
      () => this.#registry(),
      () => this.#expired.bypassed(),
    );
    return new RunMachine(state, deps);
  }

  /** Brings the tables to this release's storage format, or throws for a newer one (nothing read). */
  #upgrade(): void {
    const format = this.#store.format;
    if (format === STORAGE_FORMAT) return;
    this.#store.upgraded(
      upgradeStorage(this.ctx.storage, format, this.ctx.id.name ?? this.ctx.id.toString()),
    );
  }

  #registry(): ToolRegistry {
    this.#tools ??= this.createToolRegistry();
    return this.#tools;
  }

  /** The run's tools, built once per instance; `edgeplan/worker`'s subclass adds the team's own. */
  protected createToolRegistry(): ToolRegistry {
    return workerToolRegistry(this.env);
  }

  async #control(input: MachineInput): Promise<RpcResult<{ status: RunStatus }>> {
    const m = this.#load();
    if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
    const refused = await this.#apply([input]);
    if (refused) return { ok: false, error: refused };
    return { ok: true, value: { status: m.state.status } };
  }

  /**
   * Decide and persist (decision-commit.ts), then broadcast, re-arm and act — in that order, so nothing
   * acts on unsaved state. `extra` adds inputs computed against the live machine; `outbox` (a new run)
   * takes the steps to queue for the caller to send.
   */
  async #apply(
    inputs: MachineInput[],
    opts: CommitOptions & { outbox?: StepMessage[] } = {},
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
      this.#store.forgetCached();
      this.#journal.forgetCached();
      this.leases.forget();
      throw err;
    }
    if (!committed) return;
    const { decided, queued, inline, rows } = committed;
    if (decided.refused) return decided.refused;
    const events = decided.events;
    if (events.length === 0 && rows.length === 0) {
      if (answer) await this.#arm(m);
      return;
    }
    // Work first (it is saved now), bookkeeping after: the alarm and the run index can wait a moment.
    if (outbox) outbox.push(...queued);
    // Fanned out without holding up the caller: a consumer reporting the results that made these steps
    // ready returns at once, which frees the queue to deliver them sooner.
    else if (queued.length > 0) this.ctx.waitUntil(sendSteps(this.env.STEPS, queued));
    if (decided.abort !== null) this.#inline.abortAll(decided.abort);
    if (events.some((e) => e.event_type === 'RunTerminated')) this.#side.abortAll('the run ended');
    for (const i of inline) this.#inline.start(m.state.run_id, i.stepId, i.attempt, i.begin);
    for (const row of rows) this.#side.start(row);
    broadcast(this.ctx, events);
    // The D1 index and plan versions: awaited, so a read right after sees them — except for a new run,
    // whose first steps (in `outbox`) must not wait on D1, and whose first write waits for its next.
    // Noted before the alarm is armed, which then covers the write until D1 has it.
    const created = outbox !== undefined;
    const owed = this.#index.note(events, created || m.state.status !== statusBefore);
    await this.#arm(m);
    if (owed) await this.#index.write(created);
  }

  /** The run was hidden for its deletion: forgotten here, and all this instance did for it stopped. */
  async #release(): Promise<void> {
    this.#machine = null;
    this.#inline.abortAll('the run was deleted');
    this.#side.abortAll('the run was deleted');
    for (const ws of this.ctx.getWebSockets()) ws.close(1000, 'run deleted');
    await this.#index.close();
  }

  #begin(m: RunMachine, stepId: string, attempt: number, pending: MachineInput[]): BeginStep {
    return beginAttempt(m, this.#store, this.#registry(), stepId, attempt, pending);
  }

  /**
   * The next time the object must wake: a retry or deadline, or a check on inline attempts that an
   * eviction may have lost.
   */
  async #arm(m: RunMachine | null, exactly = false): Promise<void> {
    // A machine no longer current (the run was deleted meanwhile) has nothing to wake for.
    if (!m || m !== this.#machine) return;
    const at = wakeAt(
      m,
      {
        side: this.#side,
        leases: this.leases,
        index: this.#index,
        inline: this.#inline,
        retentionMs: () => retentionMs(this.env),
      },
      Date.now(),
    );
    await (exactly ? this.#alarm.to(at) : this.#alarm.by(at));
  }
}
