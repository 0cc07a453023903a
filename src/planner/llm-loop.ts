/**
 * The LLM part of the pipeline: models in reliability order, each with its first answer and a
 * bounded number of repairs; N-best candidates per turn when asked. Returns the first valid plan,
 * or null when every model is exhausted (the caller falls back to rules).
 */
import type { Plan } from '../plan/model';
import type { ValidationResult } from '../plan/validate';
import type { ChatMessage, FormatMode } from './chat';
import { runAttempt } from './llm-attempt';
import type { AttemptContext, AttemptResult } from './llm-attempt';
import { sumTokens } from './outcome';
import { orderModels } from './reliability';
import type { ModelCounts } from './reliability';
import { repairMessages } from './repair';
import type { Problem } from './repair';
import type { RenderedPrompt } from './templates';
import type { PlannerDeps, TraceEntry } from './types';
import { pickBest } from './verifier';
import type { Candidate } from './verifier';
import { provenanceRun } from './provenance';
import { log } from '../log';

export type LlmPlanningInput = {
  planningId: string;
  prompt: RenderedPrompt;
  primary: string;
  fallbacks: readonly string[];
  /** Models already found unusable in this planning request: not asked. */
  skip?: readonly string[];
  maxRepairs: number;
  nBest: number;
  /** The response format asked for first (a 400 steps down to the next; default json_schema). */
  firstMode?: FormatMode;
  verifier: PlannerDeps['verifier'];
  /** Appended to as attempts are made. */
  trace: TraceEntry[];
  attempt: AttemptContext;
};

/** Whether the tokens the trace has spent reach the plan's token budget (SPEC §4: planning counts). */
export function overBudget(input: LlmPlanningInput): boolean {
  const budget = input.attempt.candidate.state.limits.token_budget;
  return budget != null && sumTokens(input.trace).total >= budget;
}

export type LlmPlanningResult = { plan: Plan; validation: ValidationResult; model: string };

/**
 * Tries each model in turn until one produces a valid plan. Stops early when the caller aborts or
 * planning has spent the plan's token budget.
 */
export async function runLlmPlanning(input: LlmPlanningInput): Promise<LlmPlanningResult | null> {
  const first: ChatMessage[] = [
    { role: 'system', content: input.prompt.system },
    { role: 'user', content: input.prompt.user },
  ];
  const skip = new Set(input.skip ?? []);
  const ordered = orderModels(input.primary, input.fallbacks, await reliabilityOf(input));
  const models = ordered.filter((m) => !skip.has(m));
  for (const model of models) {
    if (input.attempt.signal?.aborted || overBudget(input)) break;
    const found = await planWithModel(input, model, first);
    if (found) return found;
  }
  return null;
}

/** One model: its first answer, then repairs quoting what was wrong, until valid or out of repairs. */
async function planWithModel(input: LlmPlanningInput, model: string, first: ChatMessage[]) {
  let messages = first;
  let mode: FormatMode = input.firstMode ?? 'json_schema';
  for (let retry = 0; retry <= input.maxRepairs && !overBudget(input); retry++) {
    const results: AttemptResult[] = await Promise.all(
      Array.from({ length: input.nBest }, (_, candidate) =>
        runAttempt(input.attempt, {
          model,
          messages,
          retry,
          candidate: input.nBest > 1 ? candidate : 0,
          mode,
        }),
      ),
    );
    for (const r of results) input.trace.push(r.trace);
    const answered = results.filter((r) => r.answer.ok);
    // A model that cannot be called (timeout, 5xx, unknown model) is not worth a repair prompt.
    if (answered.length === 0) return null;
    mode = answered[0]!.answer.mode;

    const best = answered[await choose(input, answered)]!;
    if (best.outcome === 'ok' && best.validation?.plan) {
      return { plan: best.validation.plan, validation: best.validation, model };
    }
    messages = repairMessages(first, best.raw, problemOf(best));
  }
  return null;
}

/** The index (into `results`) of the candidate to keep or to repair. */
async function choose(input: LlmPlanningInput, results: AttemptResult[]): Promise<number> {
  if (results.length === 1) return 0;
  const candidates: Candidate[] = results.map((r, index) => ({
    index,
    parsed: r.parse?.ok === true && r.validation?.plan != null,
    findings: r.validation?.errors ?? [],
    estimates: r.validation?.estimates ?? null,
  }));
  // Only valid candidates go to a custom verifier; the default ranks them all.
  const valid = candidates.filter((c) => c.parsed && c.findings.length === 0);
  if (input.verifier && valid.length > 1) {
    const picked = await input.verifier(valid);
    const chosen = valid[picked];
    if (chosen) return chosen.index;
  }
  const best = pickBest(candidates);
  return best === -1 ? 0 : best;
}

function problemOf(r: AttemptResult): Problem {
  if (r.parse && !r.parse.ok) return { kind: 'parse', error: r.parse.error };
  return { kind: 'invalid', findings: r.validation?.errors ?? [] };
}

async function reliabilityOf(input: LlmPlanningInput): Promise<Map<string, ModelCounts>> {
  const store = input.attempt.provenance;
  if (!store || input.fallbacks.length === 0) return new Map();
  try {
    return await store.reliability([input.primary, ...input.fallbacks]);
  } catch (err) {
    log(
      'model_reliability_unavailable',
      `planning ${input.planningId}: model reliability unavailable; fallbacks in configured order`,
      { ...provenanceRun(store), error: err },
    );
    return new Map();
  }
}
