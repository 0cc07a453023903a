/**
 * The planning pipeline behind the seed-003 {@link Planner} contract, for code that wants a planner
 * object rather than an outcome: `plan()` resolves to the plan or rejects with an EdgeplanError
 * carrying the outcome's code and `details.planning_trace`.
 */
import { EdgeplanError } from '../errors';
import type { Plan } from '../plan/model';
import type { Planner, PlannerState } from './contracts';
import { planFromState } from './pipeline';
import type { PlanOptions } from './pipeline';
import type { PlannerDeps } from './types';

/**
 * @example
 * const planner = new LlmPlanner(plannerDepsFor(env, { tools, clock, ids }));
 * const next = await planner.plan({ ...state, plan: current, failure: { step_id: 'b', reason: 'timeout' } });
 */
export class LlmPlanner implements Planner {
  readonly #deps: PlannerDeps;
  readonly #options: PlanOptions;

  constructor(deps: PlannerDeps, options: PlanOptions = {}) {
    this.#deps = deps;
    this.#options = options;
  }

  async plan(state: PlannerState): Promise<Plan> {
    const out = await planFromState(state, this.#options, this.#deps);
    if (out.ok) return out.plan;
    throw new EdgeplanError(out.error.code, out.error.message, {
      details: out.error.details,
      retryable: out.error.retryable,
    });
  }
}
