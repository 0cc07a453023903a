/**
 * Seed 000's `PlanningCallbacks` (§3.3): extend the class (as the seed's Python does) or pass a plain
 * object with just the callbacks you need. Each may be sync or async.
 */
import type { RunEvent } from '../engine/events';
import type { Plan, PlanStep } from '../plan/model';
import type { PlanExecutionState, StepResult } from './execution-state';

/**
 * What `onRevisionNeeded` decides when a failed step calls for a revision: ask the planner for a new
 * version of the rest of the plan (`replan`), run the failed step again (`retry`), skip it and carry
 * on (`skip`), or stop the run (`abort`). Every choice but `abort` is a new plan version and counts
 * toward `maxRevisions`.
 * @example const callbacks = { onRevisionNeeded: (state) => (state.revisionCount < 1 ? RevisionDecision.retry : RevisionDecision.abort) };
 */
export const RevisionDecision = { replan: 'replan', retry: 'retry', skip: 'skip', abort: 'abort' } as const;
export type RevisionDecision = (typeof RevisionDecision)[keyof typeof RevisionDecision];

/**
 * The defaults are seed 000's: keep the plan, approve it, do nothing per step, replan.
 * @example
 * class MyCallbacks extends PlanningCallbacks {
 *   override async onPlanApproved(plan: Plan) {
 *     return plan.steps.length <= 5;
 *   }
 * }
 * new Agent({ pattern, tools, callbacks: new MyCallbacks() });
 */
export class PlanningCallbacks {
  /** After a plan is generated; return it, or a modified plan (validated again before use). */
  onPlanGenerated(plan: Plan): Plan | Promise<Plan> {
    return plan;
  }

  /** With `requirePlanApproval`: `true` approves, anything else rejects (the run ends `cancelled`). */
  onPlanApproved(_plan: Plan): boolean | Promise<boolean> {
    return true;
  }

  /** Before a step's first attempt; the step waits for it. */
  onStepStart(_step: PlanStep): void | Promise<void> {}

  /** After a step completed, or failed with its retries and fallback spent. */
  onStepComplete(_step: PlanStep, _result: StepResult): void | Promise<void> {}

  /** A failed step calls for a revision (`allowRevision`); decide what happens. */
  onRevisionNeeded(
    _state: PlanExecutionState,
    _reason: string,
  ): RevisionDecision | Promise<RevisionDecision> {
    return RevisionDecision.replan;
  }

  /**
   * The run waits for a person (a `human.input` step, or `revisionStrategy: 'ask_user'` after a
   * failure, which `onRevisionNeeded` answers): return the answer, or `undefined` to leave it waiting.
   */
  onInputRequested(_request: { reason: string; step_id?: string }): unknown {
    return undefined;
  }

  /** Every run event as it is recorded (seed-002 envelopes); synchronous, for logs and progress. */
  onEvent(_event: RunEvent): void {}
}

/** Any subset of the callbacks, as a class instance or a plain object. */
export type PlanningHooks = Partial<PlanningCallbacks>;

type Name = keyof PlanningCallbacks;

/**
 * The callback `name` from the first source that has one, bound to it (so class methods keep
 * `this`), else the default.
 */
export function pickCallback<N extends Name>(
  name: N,
  ...sources: (PlanningHooks | undefined)[]
): PlanningCallbacks[N] {
  for (const source of sources) {
    const fn = source?.[name];
    if (typeof fn === 'function')
      return (fn as (...args: unknown[]) => unknown).bind(source) as PlanningCallbacks[N];
  }
  const fallback = DEFAULT_CALLBACKS[name] as (...args: unknown[]) => unknown;
  return fallback.bind(DEFAULT_CALLBACKS) as PlanningCallbacks[N];
}

const DEFAULT_CALLBACKS = new PlanningCallbacks();
