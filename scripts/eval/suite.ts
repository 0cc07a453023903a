/**
 * The eval core: every goal, for every model — plan with `planGoal` (validity of the first answer
 * and after repair, latency, tokens), measure the plan (dependency accuracy, atomicity), run it,
 * and run it again with a failure injected to measure the revision. No I/O of its own: the LLM is
 * reached through `fetch` (global by default, a scripted endpoint in tests).
 */
import type { IdSource } from '../../src/plan/model';
import { planGoal } from '../../src/planner/pipeline';
import { MemoryProvenanceStore } from '../../src/planner/provenance';
import type { PlannerDeps, TraceEntry } from '../../src/planner/types';
import { GOALS } from './goals';
import type { EvalGoal } from './goals';
import { atomicity, checkDependencies } from './metrics';
import { executionScenario, revisionScenario } from './scenarios';
import { summarize } from './summary';
import type { GoalResult, ModelResult } from './summary';
import { evalTools } from './tools';

export type SuiteOptions = {
  /** The endpoint, as the planner reads it. */
  env: { OPENAI_API_KEY?: string | undefined; OPENAI_BASE_URL?: string | undefined };
  /** Each model is measured alone: no fallback models, no rule planner. */
  models: readonly string[];
  /** Default: the whole suite ({@link GOALS}). */
  goals?: readonly EvalGoal[];
  /** The fetch LLM calls use; default global fetch. */
  fetch?: typeof fetch;
  /** Per LLM call (default 120 s). */
  timeoutMs?: number;
  /** Told about each goal as it finishes (progress output). */
  onGoal?: (model: string, result: GoalResult) => void;
  /** Milliseconds, for latency; default `performance.now`. */
  now?: () => number;
};

/**
 * Runs the suite; goals one at a time, so latencies are not inflated by each other.
 * @example const [m] = await runSuite({ env: { OPENAI_API_KEY: key }, models: ['gpt-4o-mini'] }); m.summary.validity.rate
 */
export async function runSuite(opts: SuiteOptions): Promise<ModelResult[]> {
  const ids = counterIds();
  const out: ModelResult[] = [];
  for (const model of opts.models) {
    const goals: GoalResult[] = [];
    for (const goal of opts.goals ?? GOALS) {
      const result = await evaluateGoal(goal, model, opts, ids);
      goals.push(result);
      opts.onGoal?.(model, result);
    }
    out.push({ model, summary: summarize(model, goals), goals });
  }
  return out;
}

/** One goal with one model. */
export async function evaluateGoal(
  goal: EvalGoal,
  model: string,
  opts: SuiteOptions,
  ids: IdSource = counterIds(),
): Promise<GoalResult> {
  const now = opts.now ?? (() => performance.now());
  const planner: PlannerDeps = {
    env: { ...opts.env, PLANNER_MODEL: model, PLANNER_FALLBACK_MODELS: '' },
    tools: evalTools(),
    clock: { now: () => new Date() },
    ids,
    rules: [],
    provenance: new MemoryProvenanceStore(),
    timeoutMs: opts.timeoutMs ?? 120_000,
    now,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  };
  const started = now();
  const outcome = await planGoal({ goal: goal.goal, input: goal.input, model }, planner);
  const attempts = outcome.planning_trace.filter((t) => t.planner === 'llm');
  const planning: GoalResult['planning'] = {
    valid_first: attempts[0]?.outcome === 'ok',
    valid: outcome.ok,
    attempts: attempts.length,
    call_errors: attempts.filter((t) => t.outcome === 'call_error').length,
    latency_ms: now() - started,
    tokens: outcome.tokens.total,
    error: outcome.ok ? null : planningError(outcome.error, attempts.at(-1)),
  };
  const base: GoalResult = {
    goal_id: goal.id,
    planning,
    atomicity: null,
    dependencies: null,
    execution: null,
    revision: null,
  };
  if (!outcome.ok) return base;
  const plan = outcome.plan;
  return {
    ...base,
    atomicity: atomicity(plan, planner.tools),
    dependencies: checkDependencies(plan, goal),
    execution: await executionScenario(goal, plan, ids),
    revision: await revisionScenario(goal, plan, planner),
  };
}

/** The last attempt's problem says more than the pipeline's summary of all of them. */
function planningError(error: { code: string; message: string }, last: TraceEntry | undefined): string {
  return last?.message
    ? `${error.code} (${last.outcome}): ${last.message}`
    : `${error.code}: ${error.message}`;
}

/** Readable, unique ids (`run_calc-chain_12`); uuids from the runtime. */
function counterIds(): IdSource {
  let n = 0;
  return { id: (prefix) => `${prefix}_${++n}`, uuid: () => crypto.randomUUID() };
}
