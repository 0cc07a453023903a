/**
 * The in-process twin of the PlanRun Durable Object: it feeds inputs to the same {@link RunMachine},
 * keeps the events in memory and the outputs in a {@link MemoryResultStore}, and carries the commands
 * out — attempts run concurrently in this process with `executeTool`, one `setTimeout` re-armed to
 * `nextWakeAt()` after every change, planning and revisions from a {@link PlanProvider}, approval and
 * input through hooks. Every decision (what is ready, how many run at once, retries, failure
 * strategies) is the machine's; this file only does what it is told.
 */
import { EdgeplanError } from '../errors';
import type { RunEvent } from '../engine/events';
import { chargeEnded } from '../engine/spent-tokens';
import { MAX_TREE_CHILD_RUNS, maxChildRunsSetting } from '../engine/child-run';
import { RunMachine, type MachineInput, type Refusal, type StepOutcome } from '../engine/machine';
import { snapshotRun, type RunSnapshot } from '../engine/snapshot';
import { emptyRunState, MemoryResultStore, type RunState } from '../engine/state';
import { ToolRegistry } from '../executor/registry';
import { TERMINAL_RUN_STATUSES, type Clock, type IdSource } from '../plan/model';
import { beginAttempt, performAttempt, resultInput, SUBPLAN_ACTION, type BegunAttempt } from './attempt';
import { randomIds, systemClock } from './defaults';
import { EventLog, type EventListener } from './event-log';
import { settledSteps } from './execution-state';
import { isPlanProvider, type PlanProvider } from '../engine/plan-provider';
import { childRunLimit, runSubplan } from './subplan';
import { STOP_PLANNING_MS, type SidePorts } from '../engine/side-work';
import { decide } from '../engine/run-loop';
import { localSidePorts } from './side-ports';
import { plannerProvider } from './planner-provider';
import { HookChain } from './hook-chain';
import { WakeTimer } from './wake-timer';
import { SideWorkSet } from './side-work-set';
import { createInput } from './start-request';
import {
  checkRunnerOptions,
  type LocalRunnerOptions,
  type RunnerHooks,
  type StartRequest,
} from './runner-options';

export type { LocalRunnerOptions, RunnerHooks, StartRequest } from './runner-options';

type Waiter = { resolve: (s: RunSnapshot) => void; reject: (err: Error) => void };

/**
 * @example
 * const runner = new LocalRunner({ tools: [echo] });
 * runner.start({ plan: { goal: 'hi', steps: [{ id: 'a', action: 'echo', parameters: { text: 'hi' } }] } });
 * for await (const event of runner) console.log(event.seq, event.event_type);
 * const snapshot = await runner.done(); // snapshot.status === 'completed'
 */
export class LocalRunner implements AsyncIterable<RunEvent> {
  readonly results = new MemoryResultStore();
  readonly #tools: ToolRegistry;
  readonly #planner: PlanProvider | null;
  readonly #ports: SidePorts;
  readonly #hooks: RunnerHooks;
  readonly #env: Record<string, unknown>;
  readonly #fetch: typeof fetch | undefined;
  readonly #clock: Clock;
  readonly #ids: IdSource;
  readonly #log: EventLog;
  #machine: RunMachine | null = null;
  /** Attempts running now, by `step#attempt`. */
  readonly #inflight = new Map<string, AbortController>();
  /** Side work running now (planning, revision, a judge, a hook): see side-work-set.ts. */
  readonly #side: SideWorkSet;
  readonly #hookChain = new HookChain(
    (err, where) => this.#report(err, where),
    () => this.#checkSettled(),
  );
  /** One timer at the machine's next wake-up (a retry backoff, an attempt or approval deadline). */
  readonly #timer: WakeTimer;
  #waiters: Waiter[] = [];
  #crashed: Error | null = null;
  /** How many levels of child runs this run is below its tree's first (0: no step started it). */
  #depth = 0;
  /** The child runs this run's whole tree has started: one count, shared by its runners. */
  #tree = { children: 0 };

  /** Throws `invalid_options` naming each bad option (a typo, a hook that is not a function). */
  constructor(options: LocalRunnerOptions) {
    const opts = checkRunnerOptions(options);
    this.#tools = opts.tools instanceof ToolRegistry ? opts.tools : new ToolRegistry(opts.tools);
    this.#clock = opts.clock ?? systemClock;
    this.#ids = opts.ids ?? randomIds;
    this.#hooks = opts.hooks ?? {};
    this.#env = opts.env ?? {};
    this.#fetch = opts.fetch;
    const p = opts.planner;
    this.#planner = !p
      ? null
      : isPlanProvider(p)
        ? p
        : plannerProvider(p, { tools: this.#tools, clock: this.#clock, ids: this.#ids });
    this.#log = new EventLog((err) => this.#report(err, 'event listener'));
    this.#timer = new WakeTimer(() => {
      try {
        this.#apply([{ type: 'tick' }]);
      } catch (err) {
        this.#crash(err);
      }
    }, opts.timers);
    this.#ports = localSidePorts(this.#planner, this.#hooks, (err, where) => this.#report(err, where));
    this.#side = new SideWorkSet({
      context: () => ({
        state: this.#machine!.state,
        results: this.results,
        ports: this.#ports,
        ids: this.#ids,
        emit: (input) => {
          this.#apply([input]);
          return Promise.resolve();
        },
      }),
      timers: this.#timer.timers,
      answer: (input) => (input ? void this.#apply([input]) : this.#checkSettled()),
      report: (err, where) => this.#report(err, where),
      crash: (err) => this.#crash(err),
    });
  }

  /**
   * Starts the run: a plan is validated first (an invalid one throws `invalid_plan` with every
   * finding in `details.errors`); without a plan the goal is planned by the planner.
   */
  start(req: StartRequest): void {
    if (this.#machine)
      throw new EdgeplanError('run_exists', `Run ${this.#machine.state.run_id} already started`);
    const create = createInput(req, { tools: this.#tools, clock: this.#clock, ids: this.#ids });
    this.#machine = new RunMachine(emptyRunState(create.run_id, create.config), {
      clock: this.#clock,
      ids: this.#ids,
      results: this.results,
      // Automatic revision triggers (unexpected results, failure rate, token budget) need a planner.
      canRevise: this.#planner !== null && this.#planner.canRevise !== false,
    });
    this.#apply([create]);
  }

  get runId(): string {
    return this.#run().state.run_id;
  }

  /** The live run state (read only: only the machine changes it). */
  get state(): Readonly<RunState> {
    return this.#run().state;
  }

  /** Every event so far, in `seq` order. */
  get events(): readonly RunEvent[] {
    return this.#log.events;
  }

  /** The run as `GET /v1/runs/:id` shows it. */
  snapshot(): RunSnapshot {
    return snapshotRun(this.#run().state, this.results);
  }

  /** Feeds the machine one input; says why when it does not apply now. */
  send(input: MachineInput): Refusal | undefined {
    this.#run();
    return this.#apply([input]);
  }

  /**
   * Stops the run; attempts in flight are aborted, and so is its planning or revision. A planning or
   * revision running is stopped first, and the cancel applied once it has told what it spent (2 s at
   * most), so the run's end counts it — a streamed answer cut now costs what had streamed — as the
   * Worker's cancel does. Until then `snapshot()` shows the run as it was; `done()` answers the
   * cancelled run.
   */
  cancel(reason?: string): Refusal | undefined {
    const input: MachineInput = { type: 'cancel', ...(reason !== undefined ? { reason } : {}) };
    if (!this.#side.planning || TERMINAL_RUN_STATUSES.has(this.#run().state.status)) return this.send(input);
    this.#side
      .stopPlanning('the run is being cancelled', STOP_PLANNING_MS)
      .then(() => void this.send(input))
      .catch((err: unknown) => this.#crash(err));
    return undefined;
  }

  /** Decides a plan awaiting approval (when no `approve` hook does). */
  approve(approved: boolean, comment?: string): Refusal | undefined {
    return this.send({
      type: 'approval',
      decision: approved ? 'approve' : 'reject',
      ...(comment ? { comment } : {}),
    });
  }

  /**
   * New information, or the answer the run waits for; with `stepId`, the answer to that step's
   * question only — refused once it was answered (not taken as new information).
   */
  provideInput(input: unknown, stepId?: string): Refusal | undefined {
    return this.send(
      stepId === undefined ? { type: 'input', input } : { type: 'input', input, step_id: stepId },
    );
  }

  /** Asks the planner for a new version of the rest of the plan. */
  requestRevision(reason: string): Refusal | undefined {
    return this.send({ type: 'request_revision', trigger: 'user_request', reason });
  }

  /** Re-runs a failed, aborted or cancelled run from its failed step(s), keeping completed work. */
  retry(stepId?: string): Refusal | undefined {
    return this.send({ type: 'resume', ...(stepId !== undefined ? { step_id: stepId } : {}) });
  }

  /** Calls `listener` with each new event; returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    return this.#log.subscribe(listener);
  }

  /** The events after `after`, then each new one, ending when the run settles. */
  stream(after = 0): AsyncGenerator<RunEvent, void, undefined> {
    return this.#log.stream(after);
  }

  [Symbol.asyncIterator](): AsyncIterator<RunEvent> {
    return this.stream();
  }

  /**
   * Resolves with the final snapshot once the run has ended and nothing it started is still going
   * (attempts, planning, hooks). A run waiting for approval or input waits until it gets it.
   */
  done(): Promise<RunSnapshot> {
    if (this.#crashed) return Promise.reject(this.#crashed);
    if (this.#settled()) return Promise.resolve(this.snapshot());
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  // ---- internals ----------------------------------------------------------------------------------

  #run(): RunMachine {
    if (!this.#machine)
      throw new EdgeplanError('run_not_started', 'The run has not been started (call start())');
    return this.#machine;
  }

  /**
   * Decide, record, then act — as the Durable Object does, minus persistence: every input (and what
   * it leads to: attempts begun in the same breath as the decision that scheduled them) goes through
   * the machine, the events are appended and announced, then attempts and side work start and the
   * timer is re-armed. Returns the first input's refusal, if any.
   */
  #apply(inputs: MachineInput[]): Refusal | undefined {
    const m = this.#machine!;
    const launches: BegunAttempt[] = [];
    const d = decide(m, inputs, (c, pending) => {
      const begun = beginAttempt(m.state, this.results, this.#tools, c, this.#clock.now().getTime());
      pending.push(...begun.inputs);
      if (begun.attempt) launches.push(begun.attempt);
    });
    const settledHook = this.#hooks.stepSettled;
    if (settledHook) {
      for (const s of settledSteps(m.state, d.events))
        void this.#hookChain.run(`stepSettled(${s.step.id})`, () => settledHook(s.step, s.result));
    }
    // However the run ended, what its side work would answer is refused: it stops (as the Durable
    // Object's does), its model calls not waited for — and what they had spent is charged to the
    // run's end, as the Durable Object charges it.
    if (TERMINAL_RUN_STATUSES.has(m.state.status)) chargeEnded(d.events, m.state, this.#side.endRun());
    if (d.abort !== null) {
      for (const ctl of this.#inflight.values()) ctl.abort(new DOMException(d.abort, 'AbortError'));
      this.#side.abortAll(d.abort);
    }
    for (const a of launches) this.#launch(a);
    for (const c of d.side) this.#side.start(c);
    this.#timer.set(m.nextWakeAt(), this.#clock.now().getTime());
    // Listeners last: one that cancels the run from inside its callback finds every attempt registered.
    if (d.events.length > 0 && !TERMINAL_RUN_STATUSES.has(m.state.status)) this.#log.reopen();
    this.#log.append(d.events);
    this.#checkSettled();
    return d.refused;
  }

  #launch(a: BegunAttempt): void {
    const key = `${a.step.id}#${a.attempt}`;
    const controller = new AbortController();
    this.#inflight.set(key, controller);
    const startHook = this.#hooks.stepStarted;
    const started =
      a.first && startHook ? this.#hookChain.run(`stepStarted(${a.step.id})`, () => startHook(a.step)) : null;
    const work = async (): Promise<void> => {
      if (started) await started;
      const outcome =
        a.action === SUBPLAN_ACTION
          ? await this.#runSubplan(a, controller.signal)
          : await performAttempt(a, {
              tools: this.#tools,
              env: this.#env,
              fetch: this.#fetch,
              signal: controller.signal,
            });
      this.#inflight.delete(key);
      this.#apply([resultInput(a, outcome)]);
    };
    void work().catch((err: unknown) => this.#crash(err));
  }

  /** A sub-plan (any `agent.dispatch`) runs as a nested run on this runner's tools, planner and clock. */
  #runSubplan(a: BegunAttempt, signal: AbortSignal): Promise<StepOutcome> {
    const most = maxChildRunsSetting(this.#env.MAX_CHILD_RUNS) ?? MAX_TREE_CHILD_RUNS;
    const refused = childRunLimit(this.#depth, this.#tree.children, most);
    if (refused) return Promise.resolve({ success: false, error: refused, latency_ms: 0 });
    this.#tree.children += 1;
    const spawn = () => {
      const child = new LocalRunner({
        tools: this.#tools,
        ...(this.#planner ? { planner: this.#planner } : {}),
        hooks: this.#hooks.error ? { error: this.#hooks.error } : {},
        env: this.#env,
        ...(this.#fetch ? { fetch: this.#fetch } : {}),
        clock: this.#clock,
        timers: this.#timer.timers,
        ids: this.#ids,
      });
      child.#depth = this.#depth + 1;
      child.#tree = this.#tree;
      return child;
    };
    return runSubplan(a, spawn, signal, this.#timer.timers);
  }

  #settled(): boolean {
    const m = this.#machine;
    return (
      m !== null &&
      TERMINAL_RUN_STATUSES.has(m.state.status) &&
      this.#inflight.size === 0 &&
      this.#side.idle &&
      this.#hookChain.pending === 0
    );
  }

  #checkSettled(): void {
    if (!this.#settled()) return;
    this.#timer.clear();
    this.#log.close();
    const waiters = this.#waiters;
    this.#waiters = [];
    if (waiters.length === 0) return;
    const snap = this.snapshot();
    for (const w of waiters) w.resolve(snap);
  }

  #report(err: unknown, where: string): void {
    if (this.#hooks.error) {
      try {
        this.#hooks.error(err, where);
        return;
      } catch {
        // fall through to the console
      }
    }
    console.error(`edgeplan: ${where} threw`, err);
  }

  /** An engine bug, not a run outcome: stop the clock and fail everyone waiting. */
  #crash(err: unknown): void {
    this.#crashed = err instanceof Error ? err : new Error(String(err));
    this.#timer.clear();
    for (const ctl of this.#inflight.values()) ctl.abort(new DOMException('runner crashed', 'AbortError'));
    this.#side.abortAll('runner crashed');
    this.#log.close();
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w.reject(this.#crashed);
    if (waiters.length === 0) this.#report(err, 'runner');
  }
}
