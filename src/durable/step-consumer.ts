/**
 * The `steps` queue consumer. For each run in a batch: one RPC asks the run's object which attempts are
 * still wanted (and for their resolved parameters), the tools run concurrently, and outcomes go back
 * over RPC — coalesced, so steps finishing together cost the object one transaction, not one each.
 *
 * While it has room and is young, a consumer takes the steps its results made ready straight back
 * from the object (continuations) and runs them at once: a queue hop costs more than a short step,
 * and this keeps the next layer of a DAG from waiting on it. Everything else goes through the queue.
 *
 * Every call one invocation makes — to the run's object, a tool's fetch — counts against the plan's
 * subrequests (subrequest-budget.ts): continuations stop being taken while the attempts already
 * running still have room to report, and the object queues the rest for another invocation.
 *
 * A message whose report fails is retried by the queue; the object's bookkeeping makes the repeat
 * harmless (same attempt, same idempotency key, at most one recorded result). While its tools run, a
 * consumer renews its leases on their attempts (durable/leases.ts): if it dies — with a message or a
 * continuation, which has none — the object sends the attempt again once the lease runs out.
 */
import type { StepOutcome } from '../engine/machine';
import { runObject, type RunObject } from './run-object';
import { workerToolRegistry } from './tools';
import type { ToolRegistry } from '../executor/registry';
import { executeApproved } from './execute';
import { deferredOf } from '../executor/deferred';
import { stepMessages, type StepMessage } from './messages';
import type { BeginStep, Continuation } from './plan-run';
import { LEASE_MS } from './leases';
import { groupsOf, reportable } from './call-limits';
import { isNewerFormatRun, NEWER_FORMAT_RETRY_S } from './storage-format';
import { log } from '../log';
import { SubrequestBudget, subrequestLimit } from './subrequest-budget';

/** Most attempts one consumer invocation runs at once. */
export const MAX_IN_FLIGHT = 500;
/** A consumer stops taking continuations after this long, so invocations stay short. */
export const CONTINUATION_WINDOW_MS = 30_000;
/** How long a finished attempt's report waits for others still running in the same consumer. */
export const COALESCE_MS = 2;
/**
 * A consumer taking continuations keeps the isolate's thread busy — each report's reply brings the
 * next steps, and in-process calls never leave the event loop idle — so one batch of reports in this
 * many waits for a timer first, letting the isolate's other work in: other requests. (Under `wrangler
 * dev` every worker shares one thread; the response to the `POST /v1/runs` that started a run of
 * instant steps waited for its consumer to finish, up to 30 s.) Counted, not timed: `Date.now()`
 * does not advance between those calls.
 */
export const YIELD_EVERY = 8;
/**
 * Subrequests one more attempt is assumed to make: its tool's call, the step-result cache's read and
 * write, and its report. Its fetches are counted as they happen; the cache's two are charged up front.
 */
export const ATTEMPT_SUBREQUESTS = 4;
/** Kept back for each attempt already running: its tool's call and its report. */
export const RUNNING_SUBREQUESTS = 2;
/** Kept back for the invocation's lease renewals and handovers. */
export const SPARE_SUBREQUESTS = 5;
/** What the step-result cache may cost an attempt (a KV read and write), charged when it starts. */
const CACHE_SUBREQUESTS = 2;

export async function consumeSteps(
  batch: MessageBatch<unknown>,
  env: Env,
  tools: ToolRegistry = workerToolRegistry(env),
): Promise<void> {
  const budget = new SubrequestBudget(subrequestLimit(env));
  const byRun = new Map<string, Message<StepMessage>[]>();
  for (const msg of stepMessages(batch.messages, 'steps consumer')) {
    const list = byRun.get(msg.body.run_id) ?? [];
    list.push(msg);
    byRun.set(msg.body.run_id, list);
  }
  await Promise.all(
    [...byRun].map(([runId, msgs]) => new RunConsumer(runId, tools, env, budget).consume(msgs)),
  );
}

type Report = { step_id: string; attempt: number; outcome: StepOutcome };
type Pending = {
  report: Report;
  /** Length of the outcome's JSON (call-limits.ts). */
  length: number;
  resolve: (next: Continuation[]) => void;
  reject: (err: unknown) => void;
};

class RunConsumer {
  readonly #started = Date.now();
  readonly #tasks = new Set<Promise<void>>();
  readonly #run: RunObject;
  readonly #reporter: Reporter;
  #inFlight = 0;
  /** Attempts whose tool is still running (the others in #inFlight are reporting). */
  #executing = 0;
  /** The tools' fetch: each call counted against the invocation's subrequests. */
  readonly #fetch: typeof fetch;

  constructor(
    private readonly runId: string,
    private readonly tools: ToolRegistry,
    private readonly env: Env,
    private readonly budget: SubrequestBudget,
  ) {
    this.#run = runObject(env.PLAN_RUN, runId);
    this.#fetch = budget.fetch();
    this.#reporter = new Reporter(
      async (reports) => {
        this.budget.spend();
        return await this.#run.completeSteps(reports, this.#room(reports.length));
      },
      () => this.#executing,
    );
  }

  async consume(msgs: Message<StepMessage>[]): Promise<void> {
    let begins: BeginStep[];
    try {
      // A redelivery (its consumer gave up or died) takes over the attempt's lease.
      const requests = msgs.map((m) => ({
        step_id: m.body.step_id,
        attempt: m.body.attempt,
        redelivered: m.attempts > 1,
      }));
      this.budget.spend();
      begins = await this.#run.beginSteps(requests);
    } catch (err) {
      log(
        'consumer_run_unreachable',
        `steps consumer: run ${this.runId} unreachable; ${msgs.length} message(s) redelivered`,
        { run_id: this.runId, count: msgs.length, error: err },
      );
      // A run a newer release wrote (a rollback) waits for that release: its messages wait too,
      // long enough between deliveries that the queue's retries last through a rollback of an hour.
      const delaySeconds = isNewerFormatRun(err) ? NEWER_FORMAT_RETRY_S : 1;
      for (const m of msgs) m.retry({ delaySeconds });
      return;
    }
    msgs.forEach((msg, i) => {
      const begin = begins[i];
      if (begin && !begin.proceed && begin.retry)
        msg.retry({ delaySeconds: 0 }); // begun, but the reply had no room for it
      else if (!begin?.proceed)
        msg.ack(); // no longer wanted: finished, superseded or cancelled
      else
        this.#spawn(
          this.#runAttempt({ step_id: msg.body.step_id, attempt: msg.body.attempt, ...begin }, msg),
        );
    });
    const renewal = setInterval(() => this.#renew(), LEASE_MS / 3);
    try {
      while (this.#tasks.size > 0) await Promise.all([...this.#tasks]);
    } finally {
      clearInterval(renewal);
    }
  }

  /** Attempts whose tool is still running, by `step#attempt`. */
  readonly #executingNow = new Map<string, { step_id: string; attempt: number }>();

  #renew(): void {
    if (this.#executingNow.size === 0) return;
    this.budget.spend();
    this.#run.renewLeases([...this.#executingNow.values()]).catch((err: unknown) => {
      log('leases_not_renewed', `steps consumer: run ${this.runId}: leases not renewed`, {
        run_id: this.runId,
        error: err,
      });
    });
  }

  /**
   * How many continuations to ask for when `finishing` attempts are about to complete: within
   * {@link MAX_IN_FLIGHT}, and within the subrequests left once the attempts still running have room.
   */
  #room(finishing: number): number {
    if (Date.now() - this.#started > CONTINUATION_WINDOW_MS) return 0;
    const running = this.#inFlight - finishing;
    const reserved = running * RUNNING_SUBREQUESTS + SPARE_SUBREQUESTS;
    const fit = this.budget.room(ATTEMPT_SUBREQUESTS, reserved);
    return Math.max(0, Math.min(MAX_IN_FLIGHT - running, fit));
  }

  #spawn(task: Promise<void>): void {
    this.#tasks.add(task);
    void task.finally(() => this.#tasks.delete(task));
  }

  async #runAttempt(c: Continuation, msg?: Message<StepMessage>): Promise<void> {
    this.#inFlight += 1;
    this.#executing += 1;
    const key = `${c.step_id}#${c.attempt}`;
    this.#executingNow.set(key, { step_id: c.step_id, attempt: c.attempt });
    this.budget.spend(CACHE_SUBREQUESTS);
    const raw = await executeApproved(
      { run_id: this.runId, ...c },
      this.tools,
      this.env,
      undefined,
      this.#fetch,
    );
    this.#executingNow.delete(key);
    this.#executing -= 1;
    const deferred = deferredOf(raw);
    if (deferred) {
      // The result comes later (a child run reports it, or a person answers): the object is told only
      // that the attempt handed over, so it does not send it again. Until then its lease stands for it.
      const input = deferred.$deferred === 'input';
      try {
        this.budget.spend();
        if (input) await this.#run.awaitInput(c.step_id, c.attempt, deferred.prompt, deferred.schema);
        else await this.#run.handedOver(c.step_id, c.attempt);
        msg?.ack();
      } catch (err) {
        const [event, what] = input
          ? (['input_wait_failed', 'could not wait for input'] as const)
          : (['step_not_reported', 'could not report its child run'] as const);
        log(event, `steps consumer: ${this.runId}/${c.step_id}#${c.attempt} ${what}`, {
          run_id: this.runId,
          step_id: c.step_id,
          attempt: c.attempt,
          error: err,
        });
        msg?.retry({ delaySeconds: 1 });
      }
      this.#inFlight -= 1;
      return;
    }
    try {
      const { outcome, length } = reportable(c.step_id, raw, c.max_output_bytes);
      const next = await this.#reporter.report({ step_id: c.step_id, attempt: c.attempt, outcome }, length);
      this.#inFlight -= 1;
      msg?.ack();
      for (const n of next) this.#spawn(this.#runAttempt(n));
    } catch (err) {
      this.#inFlight -= 1;
      log('step_not_reported', `steps consumer: ${this.runId}/${c.step_id}#${c.attempt} not reported`, {
        run_id: this.runId,
        step_id: c.step_id,
        attempt: c.attempt,
        error: err,
      });
      msg?.retry({ delaySeconds: 1 });
    }
  }
}

/**
 * Collects reports and sends them in one call: at once when no other attempt of this consumer is
 * still running, else after {@link COALESCE_MS} — so a layer of steps finishing together costs the
 * object one transaction. The continuations that call returns go to the first report's caller. Large
 * outputs split the reports into several calls, one after the other (call-limits.ts).
 */
class Reporter {
  #buffer: Pending[] = [];
  /** The pending coalescing timer: at most one, whoever flushes first. */
  #timer: ReturnType<typeof setTimeout> | undefined;
  #flushes = 0;

  constructor(
    private readonly send: (reports: Report[]) => Promise<Continuation[]>,
    /** Attempts in this consumer whose tool is still running. */
    private readonly running: () => number,
  ) {}

  report(report: Report, length: number): Promise<Continuation[]> {
    return new Promise((resolve, reject) => {
      this.#buffer.push({ report, length, resolve, reject });
      // Nothing else is still running: there is nothing to wait for.
      if (this.running() === 0) {
        queueMicrotask(() => void this.#flush());
      } else {
        if (this.#timer === undefined)
          this.#timer = setTimeout(() => {
            this.#timer = undefined;
            void this.#flush();
          }, COALESCE_MS);
      }
    });
  }

  async #flush(): Promise<void> {
    if (this.#buffer.length === 0) return;
    if (++this.#flushes % YIELD_EVERY === 0) {
      // Reports arriving meanwhile join this batch.
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    const items = this.#buffer;
    if (items.length === 0) return;
    this.#buffer = [];
    for (const group of groupsOf(items, (i) => i.length)) await this.#send(group);
  }

  async #send(items: Pending[]): Promise<void> {
    try {
      const next = await this.send(items.map((i) => i.report));
      items.forEach((item, i) => item.resolve(i === 0 ? next : []));
    } catch (err) {
      for (const item of items) item.reject(err);
    }
  }
}
