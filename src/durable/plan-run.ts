/**
 * PlanRun: one Durable Object per run (`env.PLAN_RUN.getByName(runId)`). This file is the object's
 * entry points — RPC, fetch, alarm — each checking what it is asked and handing the run an input.
 * The run itself is run-driver.ts: its machine, kept in SQLite, and the decide-persist-act loop that
 * feeds every input through the machine, persists the events in one transaction, then carries the
 * commands out. The parts with a job of their own are beside them: the run's deletion
 * (run-deleter.ts), queue attempts whose lease ran out (expired-leases.ts), when to wake next
 * (wake-time.ts), what the machine is given (machine-deps.ts), the run as it is served (served-run.ts),
 * and the WebSocket answers (sockets.ts).
 */
import { DurableObject } from 'cloudflare:workers';
import type { RunMachine, StepOutcome } from '../engine/machine';
import { planStatus, type PlanStatusView } from '../engine/status-view';
import type { BeginStep } from './begin-attempt';
import { callerViaOf, type CallerVia } from '../approval/name-source';
import { loadMcpTools } from '../mcp/worker-tools';
import { workerToolRegistry } from './tools';
import type { ToolRegistry } from '../executor/registry';
import type { Leases } from './leases';
import { approvalInput, approvalView, rollbackInput, type ApprovalView } from './approval';
import { PLANNER_NEEDED, plannerConfigured } from './planner-config';
import { TERMINAL_RUN_STATUSES, type Plan, type RunStatus } from '../plan/model';
import { isNewerFormatRun, NEWER_FORMAT_RETRY_AFTER_S } from './storage-format';
import { parentFields, type ParentFields } from './run-parent';
import { servedRunNow, servedRunAt, type ServedRun } from './served-run';
import { knownReason, type PlanVersionRow } from './plan-versions';
import { answerClientFrame, closeClientSocket, eventSocketResponse } from './sockets';
import { CallBudget, Handoff } from './call-limits';
import { eventsPage, readValue, storeBudget, streamingVersion, type EventsPage } from './run-reads';
import type { RpcResult, StatusResult } from './rpc-result';
import type { Continuation, CreateRunRequest, CreatedRun } from './run-requests';
import { createRun, replay } from './run-creation';
import { retentionDueAt, retentionMs } from './retention';
import type { DeletedRun } from './run-deletion';
import type { DeleteOptions } from './run-deleter';
import { RunDriver } from './run-driver';
import { reserveChild, treeChildRunLimit, type ChildLineage } from './child-run-limits';
import { runObject } from './run-object';
import { accessGuards, inputOfCall } from './older-worker-answer';
import { z } from 'zod';
import { log } from '../log';
import {
  newerFormatResponse,
  refusingNewer,
  refusingNewerAsync,
  type Refusable,
} from './newer-format-refusal';

/** `input()`'s `question_seq` as a Worker hands it: an RPC argument, checked as any boundary. */
const QuestionSeqArg = z.number().int().min(1).optional();

export type { BeginStep } from './begin-attempt';
export type { RpcResult } from './rpc-result';
export type { DeletedRun } from './run-deletion';
export type { Continuation, CreateRunRequest, CreatedRun } from './run-requests';

export class PlanRun extends DurableObject<Env> {
  /** The run's machine and the loop that feeds it (run-driver.ts); a fresh one after a deletion. */
  #run: RunDriver;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // MCP_SERVERS tools join the registry before the object handles anything (listings are KV-cached).
    // Without servers there is nothing to wait for, and a new run's object starts a turn sooner.
    if (env.MCP_SERVERS) void ctx.blockConcurrencyWhile(() => loadMcpTools(env));
    this.#run = this.#driver();
  }

  #driver(): RunDriver {
    return new RunDriver(this.ctx, this.env, {
      env: () => this.env,
      tools: () => this.createToolRegistry(),
      complete: async (reports) => void (await this.completeSteps(reports)),
      awaitInput: async (stepId, attempt, prompt, schema) =>
        void (await this.awaitInput(stepId, attempt, prompt, schema)),
    });
  }

  /** Leases on queue-dispatched attempts (public for tests, which shorten them). */
  get leases(): Leases {
    return this.#run.leases;
  }

  // ---- RPC ----------------------------------------------------------------------------------------

  /**
   * Starts a run. The first steps to queue come back in `outbox` for the caller to send: a fresh
   * object's first queue send is slow, and the caller's binding is warm. If the caller never sends
   * them, the steps' deadlines retry them.
   */
  create(req: CreateRunRequest): Promise<Refusable<RpcResult<CreatedRun>>> {
    return refusingNewerAsync(() => createRun(this.#run, req, () => (this.#run = this.#driver())));
  }

  /**
   * The run a create with an Idempotency-Key made here, for a request the Worker refused before it
   * got to `create` (a plan this release refuses now, a goal it cannot plan): its replay, the key's
   * reuse (another body), or null when no run is here.
   */
  keyedRun(fingerprint: string): Refusable<RpcResult<CreatedRun> | null> {
    return refusingNewer(() =>
      this.#run.load() ? replay(this.#run, this.ctx.id.name ?? '', fingerprint) : null,
    );
  }

  getRun(): Refusable<ServedRun | null> {
    return refusingNewer(() => {
      const m = this.#run.load();
      return m && servedRunNow(m.state, this.#run.store, this.#run.parentRef());
    });
  }

  /**
   * The run's status and its last event's seq — what a waiter (`GET /v1/runs/:id/wait`) checks on each
   * event it is sent, without building the whole snapshot every time.
   */
  progress(): Refusable<{ status: RunStatus; last_seq: number } | null> {
    return refusingNewer(() => {
      const m = this.#run.load();
      return m && { status: m.state.status, last_seq: m.state.seq };
    });
  }

  getStatus(opts: {
    include_details?: boolean;
    include_completed?: boolean;
  }): Refusable<(PlanStatusView & ParentFields) | null> {
    return refusingNewer(() => {
      const m = this.#run.load();
      if (!m) return null;
      const view = planStatus(m.state, this.#run.store, opts, storeBudget(this.#run.store, m.state.run_id));
      return { ...view, ...parentFields(this.#run.parentRef()) };
    });
  }

  /**
   * Deletes the run, which must have ended (`cascade`: a child run of a run being deleted, cancelled
   * first if still going), and everything stored for it (run-deletion.ts). `force`: a run this release
   * cannot read is deleted without reading it (run-deleter.ts). A deletion a crash or an outage
   * interrupted is finished by calling this again, or by the object's alarm.
   */
  deleteRun(opts: DeleteOptions = {}): Promise<Refusable<RpcResult<DeletedRun>>> {
    return refusingNewerAsync(() => this.#run.deleter.delete(opts));
  }

  /**
   * Before a step of this run starts child run `childId`: where the child sits in the run's tree, once
   * the tree's root has counted it; refused (`child_run_limit`) past the limits (child-run-limits.ts).
   */
  reserveChildRun(childId: string): Promise<Refusable<RpcResult<ChildLineage>>> {
    return refusingNewerAsync(async () => {
      const m = this.#run.load();
      if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
      const limit = treeChildRunLimit(this.env);
      return reserveChild(
        m.state.run_id,
        this.#run.parentRef(),
        childId,
        this.#run.treeChildRuns,
        limit,
        (root) => runObject(this.env.PLAN_RUN, root).countChildRun(childId),
      );
    });
  }

  /** Counts child run `childId` in the tree this run is the root of (child-run-limits.ts). */
  countChildRun(childId: string): Refusable<RpcResult<null>> {
    return refusingNewer(() => {
      const m = this.#run.load();
      if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
      return this.#run.treeChildRuns.reserve(m.state.run_id, childId, treeChildRunLimit(this.env));
    });
  }

  /** A page of the log, bounded by count and bytes (run-reads.ts). */
  listEvents(after: number, limit: number): Refusable<EventsPage> {
    return refusingNewer(() => {
      if (this.#run.store.exists) this.#run.upgrade();
      return eventsPage(this.#run.store, after, limit);
    });
  }

  /** One value by reference — where a snapshot's marker for a value it left out points. */
  readValue(ref: string): Refusable<RpcResult<{ ref: string; value: unknown }>> {
    return refusingNewer(() => {
      const m = this.#run.load();
      if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
      return readValue(m.state, this.#run.store, ref);
    });
  }

  /** The state as of event `at` (or now), rebuilt from the log alone. */
  stateAt(at?: number): Refusable<ServedRun | null> {
    return refusingNewer(() => {
      if (!this.#run.load()) return null;
      return servedRunAt(this.#run.store, this.#run.machine!.state.run_id, this.#run.parentRef(), at);
    });
  }

  /** A plan version as the run recorded it (plan-versions.ts reads large ones from here). */
  planVersion(version: number): Refusable<Plan | null> {
    return refusingNewer(() => {
      const m = this.#run.load();
      if (!m || version === streamingVersion(m)) return null;
      return this.#run.storedPlan(version);
    });
  }

  /** The versions the run has had, as its object keeps them (a version's reason is D1's to know). */
  planVersions(): Refusable<PlanVersionRow[] | null> {
    return refusingNewer(() => {
      const m = this.#run.load();
      if (!m) return null;
      const streaming = streamingVersion(m);
      return this.#run.store
        .listPlans()
        .filter((p) => p.version !== streaming)
        .map((p) => ({ ...p, reason: knownReason(p.version) }));
    });
  }

  attempts(stepId?: string): Refusable<Record<string, SqlStorageValue>[]> {
    return refusingNewer(() => {
      if (!this.#run.store.exists) return [];
      this.#run.upgrade();
      return this.#run.store.attempts.list(stepId);
    });
  }

  cancel(reason?: string): Promise<Refusable<StatusResult>> {
    return refusingNewerAsync(() => this.#run.control({ type: 'cancel', reason }));
  }

  retry(stepId?: string): Promise<Refusable<StatusResult>> {
    return refusingNewerAsync(async () => {
      const resumed = await this.#run.control({ type: 'resume', step_id: stepId });
      // A question step the cancel left running is asked again now, not at the next recovery alarm.
      if (resumed.ok) this.#askUnasked();
      return resumed;
    });
  }

  /**
   * An approver's decision — from an API caller, or with `token` from the single-use approval link.
   * The body is the request's, unchecked: with a token, nothing about it is looked at before the token.
   * A `modify` is validated and becomes the next plan version; findings come back on a bad edit.
   * `caller`: how the Worker authenticated the request (`access`, `token`, `anonymous`; an older
   * Worker sends none), for how the approver's name was established. `planVersion`: the version the
   * decider looked at, which this release's Worker takes out of the body (src/http/decision-version.ts);
   * an older Worker leaves it in the body, where the decision's schema reads it.
   */
  approve(
    body: unknown,
    token?: string,
    caller?: CallerVia,
    planVersion?: number,
  ): Promise<Refusable<StatusResult>> {
    return refusingNewerAsync(async () => {
      const m = this.#run.load();
      if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
      const via = callerViaOf(caller);
      const version = typeof planVersion === 'number' ? planVersion : undefined;
      const r = await approvalInput(
        m.state,
        this.#run.store,
        this.#run.registry(),
        body,
        token,
        via,
        version,
      );
      if (!r.ok) return { ok: false, error: r.refusal };
      const decided = await this.#run.control(r.input);
      // A revision approved while a question step ran: its question, held back meanwhile, is asked now.
      if (decided.ok) this.#askUnasked();
      return decided;
    });
  }

  /** The approval link's page: the plan, if `token` is this run's live link (nothing is spent). */
  approvalPage(token: string): Promise<Refusable<RpcResult<ApprovalView>>> {
    return refusingNewerAsync(async () => {
      const m = this.#run.load();
      if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
      const r = await approvalView(m.state, this.#run.store, token);
      return r.ok ? { ok: true, value: r.view } : { ok: false, error: r.refusal };
    });
  }

  /** A new version with the content of an earlier one; completed work is kept. */
  rollback(version: number): Promise<Refusable<RpcResult<{ status: RunStatus; plan_version: number }>>> {
    return refusingNewerAsync(async () => {
      const m = this.#run.load();
      if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
      const r = rollbackInput(m.state, this.#run.store, this.#run.registry(), version);
      if (!r.ok) return { ok: false, error: r.refusal };
      const done = await this.#run.control(r.input);
      // The version the run now has: the new one, or the current one when it already was that plan.
      const now = this.#run.load()?.state.plan?.version ?? r.input.plan.version;
      return done.ok ? { ok: true, value: { status: done.value.status, plan_version: now } } : done;
    });
  }

  /** A user-requested revision; refused up front when no planner could produce it. */
  replan(reason: string): Promise<Refusable<StatusResult>> {
    return refusingNewerAsync(async () => {
      const m = this.#run.load();
      if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
      // A run that could not be revised anyway is told why (404, 409) before what a revision would need.
      const revisable = m.state.status === 'running' || m.state.status === 'awaiting_input';
      if (revisable && !plannerConfigured(this.env)) {
        return { ok: false, error: { code: 'planning_unavailable', message: PLANNER_NEEDED } };
      }
      return this.#run.control({ type: 'request_revision', trigger: 'user_request', reason });
    });
  }

  /**
   * New information, or the answer the run waits for; `answered_by`: who sent it, `caller`: how the
   * Worker authenticated the request, for how that name was established. This release's Worker sends
   * `caller` having read `approver` out of the body itself; an older Worker sends neither, and may
   * have handed a body with `approver` over whole as `input`, read here as a body
   * (older-worker-answer.ts).
   */
  input(
    input: unknown,
    step_id?: string,
    answered_by?: string,
    caller?: CallerVia,
    question_seq?: number,
  ): Promise<Refusable<StatusResult>> {
    return refusingNewerAsync(async () => {
      const via = callerViaOf(caller);
      const asked = QuestionSeqArg.safeParse(question_seq);
      if (!asked.success) {
        const message = `question_seq: a whole number from 1 (got ${String(question_seq)})`;
        return { ok: false, error: { code: 'invalid_request', message } };
      }
      const sent = inputOfCall(
        { input, step_id, answered_by, split: via !== undefined, question_seq: asked.data },
        accessGuards(this.env),
      );
      if ('code' in sent) return { ok: false, error: sent };
      const answered = await this.#run.control({
        type: 'input',
        ...sent,
        ...(sent.answered_by === undefined || via === undefined ? {} : { answered_by_via: via }),
      });
      // A question that came while this one was open is asked now (unasked-questions.ts).
      if (answered.ok) this.#askUnasked();
      return answered;
    });
  }

  /** Asks the questions of running `human.input` steps no one was asked, once the run runs again. */
  #askUnasked(): void {
    const m = this.#run.load();
    if (m?.state.status !== 'running') return;
    this.#run.inline.recover(m.state);
    this.#run.expired.askAgain(m, Date.now());
  }

  /**
   * A running `human.input` step now waits for a person's answer (fitting `schema`, when it gives one).
   * `schema` came later than the others: a consumer of the release before sends three arguments.
   */
  awaitInput(stepId: string, attempt: number, prompt: string, schema?: unknown): Promise<Refusable<void>> {
    return refusingNewerAsync(async () => {
      if (!this.#run.load()) return;
      const asked = schema === undefined ? {} : { schema };
      await this.#run.apply([{ type: 'await_input', step_id: stepId, attempt, prompt, ...asked }]);
      this.handedOver(stepId, attempt);
    });
  }

  /**
   * A queue consumer's deferred attempt handed over — its child run started or found, its question
   * recorded (awaitInput does so itself): it is not sent again before its deadline (leases.ts).
   */
  handedOver(stepId: string, attempt: number): Refusable<void> {
    return refusingNewer(() => {
      const rt = this.#run.load()?.state.steps.get(stepId);
      if (rt?.status === 'running' && rt.attempt === attempt && rt.dispatch === 'queue' && rt.deadline_at)
        this.leases.handOver(stepId, attempt, rt.deadline_at);
    });
  }

  /**
   * A consumer asks before running attempts: are they still wanted, and with which parameters? Records
   * `ToolInvoked` once per attempt, for the whole batch in one transaction. A redelivered message for an
   * attempt that has no result yet proceeds again with the same idempotency key, so a tool with side
   * effects can recognise the repeat.
   */
  beginSteps(
    requests: { step_id: string; attempt: number; redelivered?: boolean }[],
  ): Promise<Refusable<BeginStep[]>> {
    return refusingNewerAsync(async () => {
      const m = this.#run.load();
      if (!m) return requests.map(() => ({ proceed: false, reason: 'no such run' }));
      const out: BeginStep[] = [];
      const now = Date.now();
      const reply = new CallBudget();
      await this.#run.apply([], {
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
                : reply.fit(this.#run.begin(m, r.step_id, r.attempt, inputs)),
            );
          }
        },
      });
      // The decision threw and was rolled back (the machine was reloaded, the run failed): nothing
      // above was begun.
      if (this.#run.machine !== m) return requests.map(() => ({ proceed: false, reason: 'not begun' }));
      return out;
    });
  }

  /** Consumers still running these attempts keep their leases (every third of {@link LEASE_MS}). */
  renewLeases(attempts: { step_id: string; attempt: number }[]): Refusable<void> {
    return refusingNewer(() => {
      if (this.#run.load()) this.leases.renew(attempts, Date.now());
    });
  }

  /**
   * Consumers report outcomes; a duplicate or stale report changes nothing. A consumer with room may
   * `take` steps these results made ready: they come back already begun, to run at once, instead of
   * taking another trip through the queue (the hop costs more than a short step). The rest are queued.
   */
  completeSteps(
    reports: { step_id: string; attempt: number; outcome: StepOutcome }[],
    take = 0,
  ): Promise<Refusable<Continuation[]>> {
    return refusingNewerAsync(async () => {
      const m = this.#run.load();
      if (!m) return [];
      const handoff = new Handoff(take);
      await this.#run.apply(
        reports.map((r) => ({ type: 'result', step_id: r.step_id, attempt: r.attempt, outcome: r.outcome })),
        { handoff },
      );
      // A decision that threw was rolled back, what it handed over with it (run-driver.ts).
      return this.#run.machine === m ? handoff.taken : [];
    });
  }

  /** `GET /v1/runs/:id/ws`: the run's events over a WebSocket (sockets.ts). */
  override fetch(request: Request): Response {
    const r = refusingNewer(() =>
      eventSocketResponse(this.ctx, this.#run.store, request, () => this.#run.load() !== null),
    );
    return r instanceof Response ? r : newerFormatResponse(r, this.ctx.id.name);
  }

  override webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): void {
    answerClientFrame(ws, message);
  }

  override webSocketClose(ws: WebSocket, code: number): void {
    closeClientSocket(ws, code);
  }

  /** Retries due, attempts past their deadline, inline attempts lost to an eviction. */
  override async alarm(): Promise<void> {
    this.#run.alarm.fired();
    let m: RunMachine | null;
    try {
      m = this.#run.load();
    } catch (err) {
      if (!isNewerFormatRun(err)) throw err;
      // A rollback: the run waits as the newer release left it. Its alarm is kept (a thrown alarm is
      // retried a few times, then dropped), so once that release is back the run carries on by itself.
      log('run_newer_format', (err as Error).message, { run_id: this.ctx.id.name, code: 'run_newer_format' });
      await this.#run.alarm.to(Date.now() + NEWER_FORMAT_RETRY_AFTER_S * 1000);
      return;
    }
    // Nothing to run: perhaps what is left of a deletion a crash or an outage interrupted.
    if (!m) return void (await this.deleteRun());
    const now = Date.now();
    const expires = TERMINAL_RUN_STATUSES.has(m.state.status)
      ? retentionDueAt(m.state.completed_at, retentionMs(this.env))
      : null;
    if (expires !== null && expires <= now) return void (await this.deleteRun());
    if (this.#run.index.owed) await this.#run.index.resync();
    this.#run.inline.recover(m.state);
    await this.#run.side.recover(now);
    // Before the tick: an attempt carried out in the object now is not timed out by it. The time is
    // read again after the awaits above, as the tick reads it: with the one from before them, an
    // unbegun attempt whose queue window ends with its deadline (step_timeout ≤ 60 s) could be not yet
    // out of its window here but past its deadline for the tick — timed out, not carried out.
    const redispatch = this.#run.expired.collect(m, Date.now());
    await this.#run.apply([...redispatch, { type: 'tick' }]);
    await this.#run.arm(m);
  }

  /** The run's tools, built once per instance; `edgeplan/worker`'s subclass adds the team's own. */
  protected createToolRegistry(): ToolRegistry {
    return workerToolRegistry(this.env);
  }
}
