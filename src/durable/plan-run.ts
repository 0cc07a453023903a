/**
 * PlanRun: one Durable Object per run (`env.PLAN_RUN.getByName(runId)`). It owns the run's state and
 * event log in SQLite, feeds every input through the run machine, persists the resulting events in
 * one transaction, then carries the commands out: ready steps to the `steps` queue (or inline for
 * sequential plans), one alarm re-armed to the earliest deadline, events to WebSocket clients.
 */
import { DurableObject } from 'cloudflare:workers';
import { actionFor, scopeFor, stepDef } from '../engine/decide';
import { RunMachine, type Command, type MachineInput, type StepOutcome } from '../engine/machine';
import { replay, snapshotRun, type RunSnapshot } from '../engine/snapshot';
import { planStatus, type PlanStatusView } from '../engine/status-view';
import { emptyRunState, type RunState } from '../engine/state';
import type { RunEvent } from '../engine/events';
import { executeApproved } from './execute';
import { createToolRegistry } from '../executor/tools';
import type { ToolRegistry } from '../executor/registry';
import type { RunConfig } from '../plan/config';
import type { Estimates } from '../plan/estimates';
import type { Plan } from '../plan/model';
import { collectReferences, resolveValue } from '../plan/references';
import { load, persist, idempotencyKey } from './persist';
import { SqlStore } from './sql-store';
import { indexRun } from './run-index';
import { acceptEventSocket, broadcast } from './sockets';
import type { StepMessage } from './messages';

/** Errors as data: the only shape that crosses RPC intact (STYLE §7). */
export type RpcResult<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };

export type CreateRunRequest = {
  run_id: string;
  goal: string;
  plan: Plan;
  config: RunConfig;
  input: unknown;
  estimates: Estimates | null;
  state?: Record<string, unknown>;
};

export type BeginStep =
  | { proceed: false; reason: string }
  | {
      proceed: true;
      action: string;
      parameters: Record<string, unknown>;
      idempotency_key: string;
      timeout_ms: number;
    };

/** How often a running inline attempt is checked on, so one lost to an eviction is re-run promptly. */
const INLINE_RECOVERY_MS = 5_000;

export class PlanRun extends DurableObject<Env> {
  readonly #store: SqlStore;
  #machine: RunMachine | null = null;
  #tools: ToolRegistry | null = null;
  /** Inline attempts running in this instance (lost on eviction; the alarm re-runs them). */
  readonly #inline = new Map<string, AbortController>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new SqlStore(ctx.storage.sql);
  }

  // ---- RPC ----------------------------------------------------------------------------------------

  async create(req: CreateRunRequest): Promise<RpcResult<{ run_id: string; status: string }>> {
    if (this.#load()) return { ok: false, error: { code: 'run_exists', message: `Run ${req.run_id} already exists` } };
    this.#machine = new RunMachine(emptyRunState(req.run_id, req.config), this.#deps());
    const r = await this.#apply({ type: 'create', ...req });
    if (r) return { ok: false, error: r };
    return { ok: true, value: { run_id: req.run_id, status: this.#machine.state.status } };
  }

  getRun(): RunSnapshot | null {
    const m = this.#load();
    return m ? snapshotRun(m.state, this.#store) : null;
  }

  getStatus(opts: { include_details?: boolean; include_completed?: boolean }): PlanStatusView | null {
    const m = this.#load();
    return m ? planStatus(m.state, this.#store, opts) : null;
  }

  listEvents(after: number, limit: number): RunEvent[] {
    return this.#store.events(after, limit);
  }

  /** The state as of event `at` (or now), rebuilt from the log alone. */
  stateAt(at?: number): RunSnapshot | null {
    if (!this.#load()) return null;
    const r = replay(this.#store.eventStream(0, at));
    return snapshotRun(r.state, r.results);
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
   * A consumer asks before running an attempt: is it still wanted, and with which parameters? Records
   * `ToolInvoked` once. A redelivered message for an attempt that has no result yet proceeds again with
   * the same idempotency key, so a tool with side effects can recognise the repeat.
   */
  async beginStep(stepId: string, attempt: number): Promise<BeginStep> {
    const m = this.#load();
    const rt = m?.state.steps.get(stepId);
    if (!m || !rt || rt.status !== 'running' || rt.attempt !== attempt || m.state.needs_decision.has(stepId)) {
      return { proceed: false, reason: 'attempt is no longer current' };
    }
    const { action, parameters } = actionFor(stepDef(m.state, stepId), rt.on_fallback);
    const refs = collectReferences(parameters).refs;
    const resolved = resolveValue(parameters, scopeFor(m.state, this.#store, refs));
    if (!resolved.ok) {
      const error = { code: 'missing_input', message: `${resolved.missing.text} was never written`, retryable: false };
      await this.#apply({ type: 'result', step_id: stepId, attempt, outcome: { success: false, error, latency_ms: 0 } });
      return { proceed: false, reason: error.message };
    }
    const key = idempotencyKey(m.state.run_id, stepId, attempt);
    const resolvedParams = resolved.value as Record<string, unknown>;
    await this.#apply({ type: 'invoked', step_id: stepId, attempt, tool: action, parameters: resolvedParams, idempotency_key: key, tool_version: this.#registry().get(action)?.version });
    const timeout_ms = Math.max(1, (rt.deadline_at ?? Date.now()) - Date.now());
    return { proceed: true, action, parameters: resolvedParams, idempotency_key: key, timeout_ms };
  }

  /** A consumer reports an attempt's outcome; a duplicate or stale report changes nothing. */
  async completeStep(stepId: string, attempt: number, outcome: StepOutcome): Promise<void> {
    if (!this.#load()) return;
    await this.#apply({ type: 'result', step_id: stepId, attempt, outcome });
  }

  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.headers.get('Upgrade') !== 'websocket') {
      return Response.json({ error: { code: 'upgrade_required', message: 'Connect with a WebSocket upgrade' } }, { status: 426 });
    }
    if (!this.#load()) return Response.json({ error: { code: 'run_not_found', message: 'No such run' } }, { status: 404 });
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
    const m = this.#load();
    if (!m) return;
    this.#recoverInline(m.state);
    await this.#apply({ type: 'tick' });
  }

  // ---- internals ----------------------------------------------------------------------------------

  #deps() {
    return {
      clock: { now: () => new Date() },
      ids: { id: (p: string) => `${p}_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`, uuid: () => crypto.randomUUID() },
      results: this.#store,
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
    this.#tools ??= createToolRegistry(this.env as unknown as Record<string, unknown>);
    return this.#tools;
  }

  async #control(input: MachineInput): Promise<RpcResult<{ status: string }>> {
    const m = this.#load();
    if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
    const refused = await this.#apply(input);
    if (refused) return { ok: false, error: refused };
    return { ok: true, value: { status: m.state.status } };
  }

  /** Decide, persist, broadcast, re-arm, then act — in that order, so nothing acts on unsaved state. */
  async #apply(input: MachineInput): Promise<{ code: string; message: string } | undefined> {
    const m = this.#machine!;
    const statusBefore = m.state.status;
    const r = m.handle(input);
    if (r.refused) return r.refused;
    if (r.events.length === 0) return;
    this.ctx.storage.transactionSync(() => persist(this.#store, m.state, r.events));
    broadcast(this.ctx, r.events);
    await this.#arm(m);
    if (m.state.status !== statusBefore || input.type === 'create') await indexRun(this.env.DB, m.state);
    await this.#run(r.commands);
  }

  async #arm(m: RunMachine): Promise<void> {
    let at = m.nextWakeAt();
    for (const id of m.state.running) {
      if (m.state.steps.get(id)?.dispatch === 'inline') {
        const check = Date.now() + INLINE_RECOVERY_MS;
        at = at === null ? check : Math.min(at, check);
        break;
      }
    }
    const current = await this.ctx.storage.getAlarm();
    if (at === null) {
      if (current !== null) await this.ctx.storage.deleteAlarm();
    } else if (current !== at) {
      await this.ctx.storage.setAlarm(at);
    }
  }

  async #run(commands: Command[]): Promise<void> {
    const queued: StepMessage[] = [];
    const m = this.#machine!;
    for (const c of commands) {
      if (c.type === 'abort') {
        for (const ctl of this.#inline.values()) ctl.abort(new DOMException(c.reason, 'AbortError'));
      } else if (c.mode === 'inline') {
        this.#startInline(c.step_id, c.attempt);
      } else {
        queued.push({ run_id: m.state.run_id, step_id: c.step_id, attempt: c.attempt, plan_version: m.state.plan?.version ?? 1 });
      }
    }
    // A send that fails leaves the step running until its deadline, when it is retried.
    for (let i = 0; i < queued.length; i += 100) {
      await this.env.STEPS.sendBatch(queued.slice(i, i + 100).map((body) => ({ body }))).catch((err: unknown) => {
        console.error(`run ${m.state.run_id}: queue send failed`, err);
      });
    }
  }

  #startInline(stepId: string, attempt: number): void {
    const key = `${stepId}#${attempt}`;
    if (this.#inline.has(key)) return;
    const controller = new AbortController();
    this.#inline.set(key, controller);
    const work = this.#runInline(stepId, attempt, controller.signal)
      .catch((err: unknown) => console.error(`inline step ${stepId}#${attempt} failed to report`, err))
      .finally(() => this.#inline.delete(key));
    this.ctx.waitUntil(work);
  }

  async #runInline(stepId: string, attempt: number, signal: AbortSignal): Promise<void> {
    const begin = await this.beginStep(stepId, attempt);
    if (!begin.proceed) return;
    const run_id = this.#machine!.state.run_id;
    const outcome = await executeApproved({ run_id, step_id: stepId, attempt, ...begin }, this.#registry(), this.env, signal);
    await this.completeStep(stepId, attempt, outcome);
  }

  /** Inline attempts the state says are running but this instance is not running: re-run them, same key. */
  #recoverInline(state: RunState): void {
    for (const id of state.running) {
      const rt = state.steps.get(id)!;
      if (rt.dispatch === 'inline' && !this.#inline.has(`${id}#${rt.attempt}`) && (rt.deadline_at ?? 0) > Date.now()) {
        this.#startInline(id, rt.attempt);
      }
    }
  }
}
