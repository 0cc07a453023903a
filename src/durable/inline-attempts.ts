/**
 * Attempts a run's object carries out itself (sequential plans, and tools placed in the object):
 * started in the background, their outcomes reported back to the object — those finishing together in
 * one report, so a layer of parallel steps costs one transaction; lost ones (an eviction or crash took
 * the instance) found and re-run with the same idempotency key.
 */
import { actionFor, stepDef } from '../engine/step-definition';
import type { StepOutcome } from '../engine/machine';
import type { RunState } from '../engine/state';
import { deferredOf } from '../executor/deferred';
import type { ToolRegistry } from '../executor/registry';
import type { BeginStep } from './begin-attempt';
import { executeApproved } from './execute';
import { log } from '../log';
import { asksQuestion, unasked } from './unasked-questions';

type Begun = Extract<BeginStep, { proceed: true }>;

/** One finished attempt, as reported to the object. */
export type InlineReport = { step_id: string; attempt: number; outcome: StepOutcome };

/** How long a finished attempt's report waits for others of this object still running. */
const COALESCE_MS = 1;
/**
 * Instant steps report in microtasks, and each report starts the next step: one report in this many
 * waits for a timer first, so the object's other work — a status read, a cancel — gets in between
 * (without it, a 100,000-step plan of instant steps ran to its end before a status read was served).
 * Counted, not timed: `Date.now()` does not advance between those calls.
 */
const YIELD_EVERY = 64;

export type InlineHost = {
  ctx: DurableObjectState;
  env: Env;
  tools(): ToolRegistry;
  begin(stepId: string, attempt: number): BeginStep;
  complete(reports: InlineReport[]): Promise<void>;
  awaitInput(stepId: string, attempt: number, prompt: string, schema?: unknown): Promise<void>;
};

export class InlineAttempts {
  /** Running in this instance, by `step#attempt`. */
  readonly #running = new Map<string, AbortController>();
  /**
   * Deferred attempts this instance saw hand over (their child run started or found, their question
   * recorded): not re-run while it lives. A new instance knows none, so it re-runs each once.
   */
  readonly #handedOver = new Set<string>();
  /** Finished, not yet reported. */
  #finished: { report: InlineReport; done: () => void }[] = [];
  /** The pending coalescing timer: at most one, whoever flushes first (a burst of instant steps would
   * otherwise leave one behind per flush, and an object may hold 10,000). */
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Started and not finished (those reporting are not counted). */
  #executing = 0;
  #flushes = 0;

  constructor(private readonly host: InlineHost) {}

  start(runId: string, stepId: string, attempt: number, begin: Begun): void {
    const key = `${stepId}#${attempt}`;
    if (this.#running.has(key)) return;
    const controller = new AbortController();
    this.#running.set(key, controller);
    const h = this.host;
    this.#executing += 1;
    const work = executeApproved(
      { run_id: runId, step_id: stepId, attempt, ...begin },
      h.tools(),
      h.env,
      controller.signal,
    )
      .then(async (outcome) => {
        this.#executing -= 1;
        const deferred = deferredOf(outcome);
        if (deferred?.$deferred === 'input')
          await h.awaitInput(stepId, attempt, deferred.prompt, deferred.schema);
        if (deferred) this.#handedOver.add(key);
        else await this.#report({ step_id: stepId, attempt, outcome });
      })
      .catch((err: unknown) =>
        log('inline_step_not_reported', `run ${runId}: inline step ${stepId}#${attempt} failed to report`, {
          run_id: runId,
          step_id: stepId,
          attempt,
          error: err,
        }),
      )
      .finally(() => this.#running.delete(key));
    h.ctx.waitUntil(work);
  }

  /**
   * Reports an outcome: at once when no other attempt of this object is still running (a chain's next
   * step waits for nothing), else after {@link COALESCE_MS}, with every outcome finished meanwhile.
   */
  #report(report: InlineReport): Promise<void> {
    return new Promise((resolve) => {
      this.#finished.push({ report, done: resolve });
      const alone = this.#executing === 0;
      if (alone && ++this.#flushes % YIELD_EVERY !== 0) queueMicrotask(() => void this.#flush());
      else if (this.#timer === undefined)
        this.#timer = setTimeout(
          () => {
            this.#timer = undefined;
            void this.#flush();
          },
          alone ? 0 : COALESCE_MS,
        );
    });
  }

  async #flush(): Promise<void> {
    const items = this.#finished;
    if (items.length === 0) return;
    this.#finished = [];
    try {
      await this.host.complete(items.map((i) => i.report));
    } catch (err) {
      // Not recorded: the recovery check re-runs these attempts (same key).
      log(
        'inline_step_not_reported',
        `inline attempts ${items.map((i) => `${i.report.step_id}#${i.report.attempt}`).join(', ')} failed to report`,
        {
          run_id: this.host.ctx.id.name,
          ...(items.length === 1
            ? { step_id: items[0]!.report.step_id, attempt: items[0]!.report.attempt }
            : {}),
          count: items.length,
          error: err,
        },
      );
    } finally {
      for (const i of items) i.done();
    }
  }

  abortAll(reason: string): void {
    for (const ctl of this.#running.values()) ctl.abort(new DOMException(reason, 'AbortError'));
  }

  /** Inline attempts the state says are running but this instance is not running: re-run them, same key. */
  recover(state: RunState): void {
    for (const id of state.running) {
      const rt = state.steps.get(id)!;
      if (
        this.recoverable(state, id) &&
        !this.#running.has(`${id}#${rt.attempt}`) &&
        (rt.deadline_at ?? 0) > Date.now()
      ) {
        const begin = this.host.begin(id, rt.attempt);
        if (begin.proceed) this.start(state.run_id, id, rt.attempt, begin);
      }
    }
  }

  /**
   * An inline attempt this object must re-run if it is lost — a deferred one (a child run or a person
   * answers it) too, until this instance saw it hand over. The attempt is recorded before its child
   * run is created or its question asked, so an instance lost in between left the step waiting for a
   * child that does not exist, or for an answer to a question never asked, until the tool's time
   * limit (an hour, a day). Running it again is safe: the child's id comes from the attempt, so it
   * finds the child it started, and a question the run already waits on is not asked again. One seen
   * handing over is not re-run every check (a sub-plan step's was, each 5 s, for its child's life).
   */
  recoverable(state: RunState, id: string): boolean {
    const rt = state.steps.get(id);
    if (rt?.dispatch !== 'inline') return false;
    // A question is asked (again) whenever the run is running, never while it waits on another.
    if (asksQuestion(state, id)) return unasked(state, id);
    if (this.#handedOver.has(`${id}#${rt.attempt}`)) return false;
    if (rerunnable(state, id, this.host.tools())) return true;
    return !(state.status === 'awaiting_input' && state.awaiting?.step_id === id);
  }
}

/**
 * Whether a lost attempt of step `id` is run again: yes, unless its tool defers to someone who answers
 * later (a child run, a person) and has its own deadline as the backstop.
 */
export function rerunnable(state: RunState, id: string, tools: ToolRegistry): boolean {
  const rt = state.steps.get(id);
  if (!rt) return false;
  const { action } = actionFor(stepDef(state, id), rt.on_fallback);
  return tools.get(action)?.timeout_ms === undefined;
}
