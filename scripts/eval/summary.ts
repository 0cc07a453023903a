/**
 * What the eval records per goal and how it adds up per model: seed 000 §6's success criteria as
 * rates with their counts, so "80%" always comes with "of how many".
 */
import type { RunStatus } from '../../src/plan/model';
import type { DependencyCheck } from './metrics';

/** One goal planned and run by one model. */
export type GoalResult = {
  goal_id: string;
  planning: {
    /** The model's first answer was a valid plan. */
    valid_first: boolean;
    /** Planning produced a valid plan (after repair prompts when needed). */
    valid: boolean;
    /** LLM calls made (first answer plus repairs). */
    attempts: number;
    /** Calls that got no answer (unreachable endpoint, unknown model, timeout…). */
    call_errors: number;
    latency_ms: number;
    tokens: number;
    /** Why planning failed; null when it did not. */
    error: string | null;
  };
  /** Null when there was no valid plan. */
  atomicity: { atomic: number; steps: number } | null;
  dependencies: DependencyCheck | null;
  execution: { status: RunStatus; completed: boolean; error: string | null } | null;
  /** The revision scenario: a failure injected at `failed_step`, the planner revises, the run goes on. */
  revision: {
    failed_step: string;
    /** The failure reached the planner (false when the step never ran). */
    requested: boolean;
    /** The revised run completed and redid the failed step's work. */
    effective: boolean;
    status: RunStatus;
    revisions: number;
    tokens: number;
    error: string | null;
  } | null;
};

/** `hits` of `n`; `rate` is null when there was nothing to measure. */
export type Rate = { hits: number; n: number; rate: number | null };

export type ModelSummary = {
  model: string;
  goals: number;
  validity_first: Rate;
  validity: Rate;
  completion: Rate;
  revision: Rate;
  dependencies: Rate;
  atomicity: Rate;
  /** Mean over every goal's planning call (repairs included). */
  mean_latency_ms: number | null;
  mean_tokens: number | null;
};

export type ModelResult = { model: string; summary: ModelSummary; goals: GoalResult[] };

/** Seed 000 §6 targets. Validity's applies to plans after repair: what a caller gets. */
export const TARGETS = {
  validity: 0.95,
  completion: 0.85,
  revision: 0.8,
  dependencies: 0.9,
  atomicity: 0.9,
} as const;

/**
 * Adds up one model's goals.
 * @example summarize('gpt-4o-mini', results).validity.rate // 0.917
 */
export function summarize(model: string, goals: readonly GoalResult[]): ModelSummary {
  const planned = goals.filter((g) => g.planning.valid);
  const revised = goals.flatMap((g) => (g.revision?.requested ? [g.revision] : []));
  let atomic = 0;
  let steps = 0;
  for (const g of planned) {
    atomic += g.atomicity?.atomic ?? 0;
    steps += g.atomicity?.steps ?? 0;
  }
  return {
    model,
    goals: goals.length,
    validity_first: rate(goals.filter((g) => g.planning.valid_first).length, goals.length),
    validity: rate(planned.length, goals.length),
    completion: rate(planned.filter((g) => g.execution?.completed).length, planned.length),
    revision: rate(revised.filter((r) => r.effective).length, revised.length),
    dependencies: rate(planned.filter((g) => g.dependencies?.accurate).length, planned.length),
    atomicity: rate(atomic, steps),
    mean_latency_ms: mean(goals.map((g) => g.planning.latency_ms)),
    mean_tokens: mean(goals.map((g) => g.planning.tokens)),
  };
}

function rate(hits: number, n: number): Rate {
  return { hits, n, rate: n === 0 ? null : hits / n };
}

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}
