/**
 * PlanRun: one Durable Object per run (`env.PLAN_RUN.getByName(runId)`). It owns the run's state and
 * event log in SQLite, feeds every input through the run machine, persists the resulting events in
 * one transaction, then carries the commands out: ready steps to the `steps` queue (or inline for
 * sequential plans), one alarm re-armed to the earliest deadline, events to WebSocket clients.
 */
import { DurableObject } from 'cloudflare:workers';
import { RunMachine, type MachineInput, type Refusal, type StepOutcome } from '../engine/machine';
import { replay, snapshotRun } from '../engine/snapshot';
import { planStatus, type PlanStatusView } from '../engine/status-view';
import { emptyRunState } from '../engine/state';
import type { RunEvent } from '../engine/events';
import { reportToParent, type ParentRef } from './child-runs';
import { beginAttempt, type BeginStep } from './begin-attempt';
import { workerToolRegistry } from './tools';
import type { ToolRegistry } from '../executor/registry';
import { load, persist } from './persist';
import { runSideWork, type SideCommand } from './side-work';
import { approvalInput, rollbackInput } from './approval';
import { recordPlanVersion } from './plan-versions';
import { PLANNER_NEEDED, plannerConfigured } from './planner-config';
import type { ApprovalDecision } from '../approval/decision';
import type { Plan } from '../plan/model';
import { SqlStore } from './sql-store';
import { indexRun } from './run-index';
import { sendSteps } from './fan-out';
import { Alarm } from './alarm';
import { InlineAttempts } from './inline-attempts';
import { acceptEventSocket, broadcast } from './sockets';
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

export type { BeginStep } from './begin-attempt';

/** Errors as data: the only shape that crosses RPC intact (STYLE §7). */
export type RpcResult<T> =
  { ok: true; value: T } | { ok: false; error: { code: string; message: string; details?: unknown } };

/** A new run: the machine's `create` input, plus where the API is served (for the links the run
 * hands out) and, for a child run, the parent step to report to when it ends. */
export type CreateRunRequest = Omit<Extract<MachineInput, { type: 'create' }>, 'type'> & {
  origin?: string;
  parent?: ParentRef;
  /**
   * The plan (validated) as JSON text, instead of `plan`: a large plan crosses the call as one string
   * far faster than as a structured clone of its objects (a 100,000-step plan: ~1 s less).
   */
  plan_json?: string;
};

/** A step handed to a reporting consumer to run now: already begun (ToolInvoked recorded). */
export type Continuation = { step_id: string; attempt: number } & Extract<BeginStep, { proceed: true }>;

/** How often a running inline attempt is checked on, so one lost to an eviction is re-run promptly. */
const INLINE_RECOVERY_MS = 5_000;

export class PlanRun extends DurableObject<Env> {
  readonly #store: SqlStore;
  #machine: RunMachine | null = null;
  #tools: ToolRegistry | null = null;
  readonly #inline: InlineAttempts;
  readonly #alarm: Alarm;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new SqlStore(ctx.storage.sql);
    this.#alarm = new Alarm(ctx.storage);
    this.#inline = new InlineAttempts({
      ctx,
      env,
      tools: () => this.#registry(),
      begin: (stepId, attempt) => this.#begin(this.#machine!, stepId, attempt, []),
      complete: async (stepId, attempt, outcome) =>
        void (await this.completeSteps([{ step_id: stepId, attempt, outcome }])),
      awaitInput: (stepId, attempt, prompt) => this.awaitInput(stepId, attempt, prompt),
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
  ): Promise<RpcResult<{ run_id: string; status: string; outbox: StepMessage[] }>> {
    if (this.#load())
      return { ok: false, error: { code: 'run_exists', message: `Run ${req.run_id} already exists` } };
    this.#machine = new RunMachine(emptyRunState(req.run_id, req.config), this.#deps());
    if (req.origin) this.#store.setMeta('origin', req.origin);
    if (req.parent) this.#store.setMeta('parent', JSON.stringify(req.parent));
    const outbox: StepMessage[] = [];
    const { plan_json, ...rest } = req;
    const plan = plan_json === undefined ? req.plan : (JSON.parse(plan_json) as Plan);
    if (plan && plan_json !== undefined) rememberPlanText(plan, plan_json);
    const r = await this.#apply([{ type: 'create', ...rest, plan }], undefined, undefined, outbox);
    if (r) return { ok: false, error: r };
    return { ok: true, value: { run_id: req.run_id, status: this.#machine.state.status, outbox } };
  }

  getRun(): ServedSnapshot | null {
    const m = this.#load();
    if (!m) return null;
    return servedSnapshot(
      snapshotRun(m.state, this.#store, storeBudget(this.#store, m.state.run_id)),
      this.#store,
    );
  }

  getStatus(opts: { include_details?: boolean; include_completed?: boolean }): PlanStatusView | null {
    const m = this.#load();
    return m ? planStatus(m.state, this.#store, opts, storeBudget(this.#store, m.state.run_id)) : null;
  }

  /** A page of the log, bounded by count and bytes (run-reads.ts). */
  listEvents(after: number, limit: number): EventsPage {
    return eventsPage(this.#store, after, limit);
  }

  /** One value by reference — where a snapshot's marker for a value it left out points. */
  readValue(ref: string): RpcResult<{ ref: string; value: unknown }> {
    const m = this.#load();
    if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
    return readValue(m.state, this.#store, ref);
  }

  /** The state as of event `at` (or now), rebuilt from the log alone. */
  stateAt(at?: number): ServedSnapshot | null {
    if (!this.#load()) return null;
    const r = replay(this.#store.eventStream(0, at));
    const snap = snapshotRun(r.state, r.results, memoryBudget(this.#machine!.state.run_id));
    return servedSnapshot(snap, this.#store);
  }

  /** A plan version as the run recorded it (plan-versions.ts reads large ones from here). */
  planVersion(version: number): Plan | null {
    return this.#load() ? (this.#store.getPlan(version) as Plan | null) : null;
  }

  attempts(stepId?: string): Record<string, SqlStorageValue>[] {
    return this.#store.attempts(stepId);
  }

  async cancel(reason?: string): Promise<RpcResult<{ status: string }>> {
    return this.#control({ type: 'cancel', reason });
  }

  async retry(stepId?: string): Promise<RpcResult<{ status: string }>> {
    return this.#control({ type: 'resume', step_id: stepId });
  }

  /**
   * An approver's decision — from an API caller, or with `token` from the single-use approval link.
   * A `modify` is validated and becomes the next plan version; findings come back on a bad edit.
   */
  async approve(body: ApprovalDecision, token?: string): Promise<RpcResult<{ status: string }>> {
    const m = this.#load();
    if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
    const r = await approvalInput(m.state, this.#store, this.#registry(), body, token);
    return r.ok ? this.#control(r.input) : { ok: false, error: r.refusal };
  }

  /** A new version with the content of an earlier one; completed work is kept. */
  async rollback(version: number): Promise<RpcResult<{ status: string; plan_version: number }>> {
    const m = this.#load();
    if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
    const r = rollbackInput(m.state, this.#store, this.#registry(), version);
    if (!r.ok) return { ok: false, error: r.refusal };
    const done = await this.#control(r.input);
    return done.ok
      ? { ok: true, value: { status: done.value.status, plan_version: r.input.plan.version } }
      : done;
  }

  /** A user-requested revision; refused up front when no planner could produce it. */
  async replan(reason: string): Promise<RpcResult<{ status: string }>> {
    if (!plannerConfigured(this.env)) {
      return { ok: false, error: { code: 'planning_unavailable', message: PLANNER_NEEDED } };
    }
    return this.#control({ type: 'request_revision', trigger: 'user_request', reason });
  }

  /** New information, or the answer the run waits for. */
  async input(input: unknown): Promise<RpcResult<{ status: string }>> {
    return this.#control({ type: 'input', input });
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
  async beginSteps(requests: { step_id: string; attempt: number }[]): Promise<BeginStep[]> {
    const m = this.#load();
    if (!m) return requests.map(() => ({ proceed: false, reason: 'no such run' }));
    const out: BeginStep[] = [];
    const reply = new CallBudget();
    await this.#apply([], (inputs) => {
      for (const r of requests) out.push(reply.fit(this.#begin(m, r.step_id, r.attempt, inputs)));
    });
    return out;
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
      undefined,
      handoff,
    );
    return handoff.taken;
  }

  override fetch(request: Request): Response {
    const url = new URL(request.url);
    if (request.headers.get('Upgrade') !== 'websocket') {
      return Response.json(
        { error: { code: 'upgrade_required', message: 'Connect with a WebSocket upgrade' } },
        { status: 426 },
      );
    }
    if (!this.#load())
      return Response.json({ error: { code: 'run_not_found', message: 'No such run' } }, { status: 404 });
    const after = Number(url.searchParams.get('after') ?? 0);
    return acceptEventSocket(this.ctx, this.#store, Number.isFinite(after) ? after : 0);
  }

  override webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): void {
    if (message === 'ping') ws.send('pong');
  }

  override webSocketClose(ws: WebSocket, code: number): void {
    ws.close(code === 1005 ? 1000 : code, 'closing');
  }

  /** Retries due, attempts past their deadline, inline attempts lost to an eviction. */
  override async alarm(): Promise<void> {
    this.#alarm.fired();
    const m = this.#load();
    if (!m) return;
    this.#inline.recover(m.state);
    await this.#apply([{ type: 'tick' }]);
    await this.#arm(m);
  }

  // ---- internals ----------------------------------------------------------------------------------

  #deps() {
    return {
      clock: { now: () => new Date() },
      ids: {
        id: (p: string) => `${p}_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`,
        uuid: () => crypto.randomUUID(),
      },
      results: this.#store,
      canRevise: plannerConfigured(this.env),
      judge: plannerConfigured(this.env),
    };
  }

  #load(): RunMachine | null {
    if (this.#machine) return this.#machine;
    const state = load(this.#store);
    if (!state) return null;
    this.#machine = new RunMachine(state, this.#deps());
    return this.#machine;
  }

  #registry(): ToolRegistry {
    this.#tools ??= workerToolRegistry(this.env);
    return this.#tools;
  }

  async #control(input: MachineInput): Promise<RpcResult<{ status: string }>> {
    const m = this.#load();
    if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
    const refused = await this.#apply([input]);
    if (refused) return { ok: false, error: refused };
    return { ok: true, value: { status: m.state.status } };
  }

  /**
   * Decide, persist, broadcast, re-arm, then act — in that order, so nothing acts on unsaved state.
   * Inline attempts are begun in the same transaction as the decision that scheduled them, so a
   * sequential step costs one transaction. `extra` adds inputs computed against the live machine.
   */
  async #apply(
    inputs: MachineInput[],
    extra?: (inputs: MachineInput[]) => void,
    handoff?: Handoff,
    outbox?: StepMessage[],
  ): Promise<{ code: string; message: string } | undefined> {
    const m = this.#machine!;
    const statusBefore = m.state.status;
    const events: RunEvent[] = [];
    const queued: StepMessage[] = [];
    const inline: { stepId: string; attempt: number; begin: Extract<BeginStep, { proceed: true }> }[] = [];
    let abort: string | null = null;
    const side: SideCommand[] = [];
    const pending = [...inputs];
    const handle = (input: MachineInput): Refusal | undefined => {
      const r = m.handle(input);
      if (r.refused) return r.refused;
      events.push(...r.events);
      for (const c of r.commands) {
        if (c.type === 'abort') abort = c.reason;
        else if (c.type !== 'dispatch') side.push(c);
        else if (c.mode === 'queue' && handoff?.wants()) {
          const begin = this.#begin(m, c.step_id, c.attempt, pending);
          if (begin.proceed) handoff.take({ step_id: c.step_id, attempt: c.attempt, ...begin });
        } else if (c.mode === 'queue') {
          queued.push({
            run_id: m.state.run_id,
            step_id: c.step_id,
            attempt: c.attempt,
            plan_version: m.state.plan?.version ?? 1,
          });
        } else {
          const begin = this.#begin(m, c.step_id, c.attempt, pending);
          if (begin.proceed) inline.push({ stepId: c.step_id, attempt: c.attempt, begin });
        }
      }
      return undefined;
    };
    // Deciding writes outputs and state variables as it folds results in: one transaction with the
    // events, so they land together (and a write costs a fraction of an implicit transaction's).
    let refused: Refusal | undefined;
    try {
      this.ctx.storage.transactionSync(() => {
        extra?.(pending);
        while (pending.length > 0 && !refused) {
          const r = handle(pending.shift()!);
          if (r && inputs.length === 1) refused = r;
        }
        if (events.length > 0) persist(this.#store, m.state, events);
      });
    } catch (err) {
      // Rolled back: what is in memory may be ahead of storage, so reload it from storage next time.
      this.#machine = null;
      this.#store.forgetCached();
      throw err;
    }
    if (refused) return refused;
    if (events.length === 0) return;
    // Work first (it is saved now), bookkeeping after: the alarm and the run index can wait a moment.
    if (outbox) outbox.push(...queued);
    // Fanned out without holding up the caller: a consumer reporting the results that made these steps
    // ready returns at once, which frees the queue to deliver them sooner.
    else if (queued.length > 0) this.ctx.waitUntil(sendSteps(this.env.STEPS, queued));
    if (abort !== null) this.#inline.abortAll(abort);
    for (const i of inline) this.#inline.start(m.state.run_id, i.stepId, i.attempt, i.begin);
    for (const c of side) this.ctx.waitUntil(this.#sideWork(c));
    broadcast(this.ctx, events);
    await this.#arm(m);
    if (events.some((e) => e.event_type === 'RunTerminated'))
      this.ctx.waitUntil(reportToParent(this.env, this.#store, m.state));
    // The D1 index and plan versions: awaited, so a read right after sees them — except for a new run,
    // whose first steps (in `outbox`) must not wait on D1 to be sent.
    const bookkeeping = this.#bookkeeping(events, statusBefore);
    if (outbox) this.ctx.waitUntil(bookkeeping);
    else await bookkeeping;
  }

  async #bookkeeping(events: RunEvent[], statusBefore: string): Promise<void> {
    const m = this.#machine!;
    if (m.state.status !== statusBefore || events[0]?.event_type === 'RunCreated')
      await indexRun(this.env.DB, m.state);
    for (const e of events) {
      if (e.event_type === 'PlanAuthored' || e.event_type === 'PlanUpdated') {
        const reason = e.event_type === 'PlanUpdated' ? e.payload.reason : 'authored';
        await recordPlanVersion(this.env, m.state.run_id, e.payload.plan, reason, e.timestamp);
      }
    }
  }

  /** Work a decision asks for beyond running steps: planning, revising, notifying an approver. */
  async #sideWork(c: SideCommand): Promise<void> {
    try {
      await runSideWork(c, {
        state: this.#machine!.state,
        env: this.env,
        tools: this.#registry(),
        store: this.#store,
        apply: (inputs) => this.#apply(inputs),
      });
    } catch (err) {
      console.error(`run ${this.#machine?.state.run_id}: ${c.type} failed`, err);
    }
  }

  #begin(m: RunMachine, stepId: string, attempt: number, pending: MachineInput[]): BeginStep {
    return beginAttempt(m, this.#store, this.#registry(), stepId, attempt, pending);
  }

  /**
   * The next time the object must wake: a retry or deadline, or a check on inline attempts that an
   * eviction may have lost.
   */
  async #arm(m: RunMachine): Promise<void> {
    let at = m.nextWakeAt();
    for (const id of m.state.running) {
      if (this.#inline.recoverable(m.state, id)) {
        const check = Date.now() + INLINE_RECOVERY_MS;
        at = at === null ? check : Math.min(at, check);
        break;
      }
    }
    await this.#alarm.by(at);
  }
}
