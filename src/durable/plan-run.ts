/**
 * PlanRun: one Durable Object per run (`env.PLAN_RUN.getByName(runId)`). This file is the object's
 * entry points — RPC, fetch, alarm — each refusing a run a newer release wrote, and handing the call
 * to the file whose job it is: the read-only RPCs (run-queries.ts), those by which people steer the
 * run (run-decisions.ts), the queue consumers' calls about their attempts (consumer-calls.ts), the
 * child-run counts (child-run-calls.ts) and the alarm (run-alarm.ts).
 * The run itself is run-driver.ts: its machine, kept in SQLite, and the decide-persist-act loop that
 * feeds every input through the machine, persists the events in one transaction, then carries the
 * commands out. The parts with a job of their own are beside them: the run's deletion
 * (run-deleter.ts), queue attempts whose lease ran out (expired-leases.ts), when to wake next
 * (wake-time.ts), what the machine is given (machine-deps.ts), the run as it is served (served-run.ts),
 * and the WebSocket answers (sockets.ts).
 */
import { DurableObject } from 'cloudflare:workers';
import type { StepOutcome } from '../engine/machine';
import type { PlanStatusView } from '../engine/status-view';
import type { BeginStep } from './begin-attempt';
import type { CallerVia } from '../approval/name-source';
import { loadMcpTools } from '../mcp/worker-tools';
import { workerToolRegistry } from './tools';
import type { ToolRegistry } from '../executor/registry';
import type { Leases } from './leases';
import type { ApprovalView } from './approval';
import type { Plan, RunStatus } from '../plan/model';
import type { ParentFields } from './run-parent';
import type { ServedRun } from './served-run';
import type { PlanVersionRow } from './plan-versions';
import { answerClientFrame, closeClientSocket, eventSocketResponse } from './sockets';
import type { EventsPage } from './run-reads';
import type { RpcResult, StatusResult } from './rpc-result';
import type { Continuation, CreateRunRequest, CreatedRun } from './run-requests';
import { createRun } from './run-creation';
import type { DeletedRun } from './run-deletion';
import type { DeleteOptions } from './run-deleter';
import { RunDriver } from './run-driver';
import type { ChildLineage } from './child-run-limits';
import {
  attemptsOf,
  eventsOf,
  keyedRunOf,
  planVersionOf,
  planVersionsOf,
  progressOf,
  runAt,
  runNow,
  statusOf,
  valueOf,
} from './run-queries';
import { approvalPageOf, approveRun, inputRun, replanRun, retryRun, rollbackRun } from './run-decisions';
import { awaitInputOf, beginAttempts, completeAttempts, handOver, renewLeasesOf } from './consumer-calls';
import { countChildOf, reserveChildOf } from './child-run-calls';
import { runAlarm } from './run-alarm';
import {
  newerFormatResponse,
  refusingNewer,
  refusingNewerAsync,
  type Refusable,
} from './newer-format-refusal';

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
    return refusingNewer(() => keyedRunOf(this.#run, this.ctx.id.name ?? '', fingerprint));
  }

  getRun(): Refusable<ServedRun | null> {
    return refusingNewer(() => runNow(this.#run));
  }

  /**
   * The run's status and its last event's seq — what a waiter (`GET /v1/runs/:id/wait`) checks on each
   * event it is sent, without building the whole snapshot every time.
   */
  progress(): Refusable<{ status: RunStatus; last_seq: number } | null> {
    return refusingNewer(() => progressOf(this.#run));
  }

  getStatus(opts: {
    include_details?: boolean;
    include_completed?: boolean;
  }): Refusable<(PlanStatusView & ParentFields) | null> {
    return refusingNewer(() => statusOf(this.#run, opts));
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
    return refusingNewerAsync(() => reserveChildOf(this.#run, this.env, childId));
  }

  /** Counts child run `childId` in the tree this run is the root of (child-run-limits.ts). */
  countChildRun(childId: string): Refusable<RpcResult<null>> {
    return refusingNewer(() => countChildOf(this.#run, this.env, childId));
  }

  /** A page of the log, bounded by count and bytes (run-reads.ts). */
  listEvents(after: number, limit: number): Refusable<EventsPage> {
    return refusingNewer(() => eventsOf(this.#run, after, limit));
  }

  /** One value by reference — where a snapshot's marker for a value it left out points. */
  readValue(ref: string): Refusable<RpcResult<{ ref: string; value: unknown }>> {
    return refusingNewer(() => valueOf(this.#run, ref));
  }

  /** The state as of event `at` (or now), rebuilt from the log alone. */
  stateAt(at?: number): Refusable<ServedRun | null> {
    return refusingNewer(() => runAt(this.#run, at));
  }

  /** A plan version as the run recorded it (plan-versions.ts reads large ones from here). */
  planVersion(version: number): Refusable<Plan | null> {
    return refusingNewer(() => planVersionOf(this.#run, version));
  }

  /** The versions the run has had, as its object keeps them (a version's reason is D1's to know). */
  planVersions(): Refusable<PlanVersionRow[] | null> {
    return refusingNewer(() => planVersionsOf(this.#run));
  }

  attempts(stepId?: string): Refusable<Record<string, SqlStorageValue>[]> {
    return refusingNewer(() => attemptsOf(this.#run, stepId));
  }

  cancel(reason?: string): Promise<Refusable<StatusResult>> {
    return refusingNewerAsync(() => this.#run.control({ type: 'cancel', reason }));
  }

  retry(stepId?: string): Promise<Refusable<StatusResult>> {
    return refusingNewerAsync(() => retryRun(this.#run, stepId));
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
    return refusingNewerAsync(() => approveRun(this.#run, body, token, caller, planVersion));
  }

  /** The approval link's page: the plan, if `token` is this run's live link (nothing is spent). */
  approvalPage(token: string): Promise<Refusable<RpcResult<ApprovalView>>> {
    return refusingNewerAsync(() => approvalPageOf(this.#run, token));
  }

  /** A new version with the content of an earlier one; completed work is kept. */
  rollback(version: number): Promise<Refusable<RpcResult<{ status: RunStatus; plan_version: number }>>> {
    return refusingNewerAsync(() => rollbackRun(this.#run, version));
  }

  /** A user-requested revision; refused up front when no planner could produce it. */
  replan(reason: string): Promise<Refusable<StatusResult>> {
    return refusingNewerAsync(() => replanRun(this.#run, this.env, reason));
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
    return refusingNewerAsync(() =>
      inputRun(this.#run, this.env, { input, step_id, answered_by, caller, question_seq }),
    );
  }

  /**
   * A running `human.input` step now waits for a person's answer (fitting `schema`, when it gives one).
   * `schema` came later than the others: a consumer of the release before sends three arguments.
   */
  awaitInput(stepId: string, attempt: number, prompt: string, schema?: unknown): Promise<Refusable<void>> {
    return refusingNewerAsync(() => awaitInputOf(this.#run, stepId, attempt, prompt, schema));
  }

  /**
   * A queue consumer's deferred attempt handed over — its child run started or found, its question
   * recorded (awaitInput does so itself): it is not sent again before its deadline (leases.ts).
   */
  handedOver(stepId: string, attempt: number): Refusable<void> {
    return refusingNewer(() => handOver(this.#run, stepId, attempt));
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
    return refusingNewerAsync(() => beginAttempts(this.#run, requests));
  }

  /** Consumers still running these attempts keep their leases (every third of {@link LEASE_MS}). */
  renewLeases(attempts: { step_id: string; attempt: number }[]): Refusable<void> {
    return refusingNewer(() => renewLeasesOf(this.#run, attempts));
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
    return refusingNewerAsync(() => completeAttempts(this.#run, reports, take));
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
    await runAlarm(this.#run, this.env, this.ctx.id.name, () => this.deleteRun());
  }

  /** The run's tools, built once per instance; `edgeplan/worker`'s subclass adds the team's own. */
  protected createToolRegistry(): ToolRegistry {
    return workerToolRegistry(this.env);
  }
}
