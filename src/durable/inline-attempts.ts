/**
 * Attempts a run's object carries out itself (sequential plans): started in the background, their
 * outcome reported back to the object; lost ones (an eviction or crash took the instance) found and
 * re-run with the same idempotency key.
 */
import { actionFor, stepDef } from '../engine/decide';
import type { StepOutcome } from '../engine/machine';
import type { RunState } from '../engine/state';
import { deferredOf } from '../executor/deferred';
import type { ToolRegistry } from '../executor/registry';
import type { BeginStep } from './begin-attempt';
import { executeApproved } from './execute';

type Begun = Extract<BeginStep, { proceed: true }>;

export type InlineHost = {
  ctx: DurableObjectState;
  env: Env;
  tools(): ToolRegistry;
  begin(stepId: string, attempt: number): BeginStep;
  complete(stepId: string, attempt: number, outcome: StepOutcome): Promise<void>;
  awaitInput(stepId: string, attempt: number, prompt: string): Promise<void>;
};

export class InlineAttempts {
  /** Running in this instance, by `step#attempt`. */
  readonly #running = new Map<string, AbortController>();

  constructor(private readonly host: InlineHost) {}

  start(runId: string, stepId: string, attempt: number, begin: Begun): void {
    const key = `${stepId}#${attempt}`;
    if (this.#running.has(key)) return;
    const controller = new AbortController();
    this.#running.set(key, controller);
    const h = this.host;
    const work = executeApproved(
      { run_id: runId, step_id: stepId, attempt, ...begin },
      h.tools(),
      h.env,
      controller.signal,
    )
      .then(async (outcome) => {
        const deferred = deferredOf(outcome);
        if (deferred?.$deferred === 'input') await h.awaitInput(stepId, attempt, deferred.prompt);
        else if (!deferred) await h.complete(stepId, attempt, outcome);
      })
      .catch((err: unknown) => console.error(`inline step ${stepId}#${attempt} failed to report`, err))
      .finally(() => this.#running.delete(key));
    h.ctx.waitUntil(work);
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
   * An inline attempt this object must re-run if it is lost. Not a deferred tool's (a child run or a
   * person answers it; its own deadline is the backstop), which would otherwise be re-run every check.
   */
  recoverable(state: RunState, id: string): boolean {
    return state.steps.get(id)?.dispatch === 'inline' && rerunnable(state, id, this.host.tools());
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
