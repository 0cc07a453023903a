/**
 * The rule-based planner (SPEC §3, seed 003): deterministic rules matched against the planner state,
 * in order; the first that matches and yields steps makes the plan. The LLM pipeline's last
 * fallback, and a planner of its own when no LLM is configured.
 */
import { EdgeplanError } from '../errors';
import type { Clock, IdSource, Plan, PlanStep } from '../plan/model';
import type { PlannerState, Rule, RulePlanner } from './contracts';

export type RulePlannerOptions = { rules?: readonly Rule[]; clock: Clock; ids: IdSource };

/** A plan made by a rule, and which rule made it. */
export type RuleMatch = { rule: Rule; plan: Plan };

/**
 * Rules in order. `plan()` rejects with `no_rule_matched` when none applies; `planFor()` returns
 * `null` instead, for callers with somewhere else to go.
 * @example
 * const planner = new RuleBasedPlanner({ rules: builtinRules, clock, ids });
 * planner.addRule({ id: 'ping', match: (s) => s.goal === 'ping', toPlanStep: () => step });
 */
export class RuleBasedPlanner implements RulePlanner {
  readonly #rules: Rule[];
  readonly #clock: Clock;
  readonly #ids: IdSource;

  constructor({ rules = [], clock, ids }: RulePlannerOptions) {
    this.#rules = [...rules];
    this.#clock = clock;
    this.#ids = ids;
  }

  /** Adds a rule after the others, or before them with `{ first: true }`. */
  addRule(rule: Rule, opts: { first?: boolean } = {}): this {
    if (opts.first) this.#rules.unshift(rule);
    else this.#rules.push(rule);
    return this;
  }

  getRules(): Rule[] {
    return [...this.#rules];
  }

  /** The first rule that matches and yields steps, with its plan; `null` when none does. */
  planFor(state: PlannerState): RuleMatch | null {
    for (const rule of this.#rules) {
      if (!rule.match(state)) continue;
      const made = rule.toPlanStep(state);
      const steps = made === null ? [] : Array.isArray(made) ? made : [made];
      if (steps.length === 0) continue;
      return { rule, plan: this.#toPlan(state, rule, steps) };
    }
    return null;
  }

  plan(state: PlannerState): Promise<Plan> {
    const found = this.planFor(state);
    if (!found) {
      return Promise.reject(
        new EdgeplanError(
          'no_rule_matched',
          `No rule matches the goal "${state.goal}" (rules: ${this.#ruleIds()})`,
        ),
      );
    }
    return Promise.resolve(found.plan);
  }

  #toPlan(state: PlannerState, rule: Rule, steps: PlanStep[]): Plan {
    return {
      id: this.#ids.id('plan'),
      version: 1,
      goal: state.goal,
      strategy: state.strategy ?? 'flat',
      steps,
      created_at: this.#clock.now().toISOString(),
      metadata: { planner: 'rules', rule: rule.id },
    };
  }

  #ruleIds(): string {
    return this.#rules.map((r) => r.id).join(', ') || 'none';
  }
}
