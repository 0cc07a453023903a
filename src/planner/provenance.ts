/**
 * Planning provenance (SPEC §3, seed 003): one record per LLM attempt — the template, the rendered
 * prompt (redacted), the raw answer, the model and temperature, the retry index, the parse and
 * validation results, tokens and latency — and per-model reliability updated with each record.
 * Storage sits behind {@link ProvenanceStore}: {@link MemoryProvenanceStore} here, D1 in
 * `provenance-d1.ts`, one conformance suite for both.
 */
import type { Finding } from '../plan/findings';
import type { FormatMode } from './chat';
import { addAttempt, emptyCounts, withRates } from './reliability';
import type { AttemptOutcome, ModelCounts, ModelReliability } from './reliability';

export type { AttemptOutcome, ModelReliability } from './reliability';

/** One LLM planning attempt. */
export type PlanningAttempt = {
  /** `patt_<random>`. */
  id: string;
  /** The planning request this attempt belongs to (`planning_<random>`). */
  planning_id: string;
  /** 1, 2, … within the planning request, in the order the attempts were made. */
  seq: number;
  model: string;
  temperature: number | null;
  template_id: string;
  template_version: string;
  /** 0 for a model's first answer, 1… for repair prompts. */
  retry: number;
  /** N-best: which of the candidates generated together (0 when N-best is off). */
  candidate: number;
  response_format: FormatMode;
  /** The messages sent, as JSON, secrets redacted. */
  prompt: string;
  /** The model's answer as received (secrets redacted); null when the call failed. */
  raw_output: string | null;
  outcome: AttemptOutcome;
  /** The call error or parse error; null otherwise. */
  error: string | null;
  /** Which accepted shape the answer was in, when it parsed. */
  parse_format: string | null;
  /** Validation findings of a parsed answer. */
  findings: Finding[];
  prompt_tokens: number;
  completion_tokens: number;
  /** The server never reported usage (a stream cut off before it): the token counts are estimated. */
  tokens_estimated?: true;
  latency_ms: number;
  /** The plan this attempt produced, when it was valid. */
  plan_id: string | null;
  strategy: string;
  created_at: string;
};

/**
 * Where attempts and reliability live. `recordAttempt` stores the attempt and folds it into its
 * model's reliability in one step; recording the same attempt (same `id`) again changes nothing,
 * and another attempt with a taken `(planning_id, seq)` is refused.
 */
export interface ProvenanceStore {
  /** The run the attempts are filed under, when the store was made for one: its failures are logged with it. */
  readonly runId?: string | null | undefined;
  recordAttempt(attempt: PlanningAttempt): Promise<void>;
  /** A planning request's attempts in `seq` order. */
  attempts(planningId: string): Promise<PlanningAttempt[]>;
  /** Reliability of the named models (all known models when omitted); unknown models are absent. */
  reliability(models?: readonly string[]): Promise<Map<string, ModelReliability>>;
}

/**
 * The run a store files its attempts under, as a log line's field (`{}` when it was made for none), so
 * a failure of the store is found by filtering on the run.
 * @example log('planning_provenance_not_stored', msg, { ...provenanceRun(store), error: err });
 */
export function provenanceRun(store: ProvenanceStore | undefined): { run_id?: string } {
  return store?.runId ? { run_id: store.runId } : {};
}

/**
 * Provenance in memory: tests, plain Node, and the library's in-process use.
 * @example const store = new MemoryProvenanceStore(); await planGoal(req, { ...deps, provenance: store });
 */
export class MemoryProvenanceStore implements ProvenanceStore {
  readonly #attempts: PlanningAttempt[] = [];
  readonly #models = new Map<string, ModelCounts>();

  recordAttempt(attempt: PlanningAttempt): Promise<void> {
    if (this.#attempts.some((a) => a.id === attempt.id)) return Promise.resolve();
    if (this.#attempts.some((a) => a.planning_id === attempt.planning_id && a.seq === attempt.seq)) {
      return Promise.reject(
        new Error(`Planning ${attempt.planning_id} already has an attempt ${attempt.seq}`),
      );
    }
    this.#attempts.push(structuredClone(attempt));
    const counts = this.#models.get(attempt.model) ?? emptyCounts(attempt.model);
    this.#models.set(
      attempt.model,
      addAttempt(counts, attempt.outcome, attempt.latency_ms, attempt.created_at),
    );
    return Promise.resolve();
  }

  attempts(planningId: string): Promise<PlanningAttempt[]> {
    const found = this.#attempts.filter((a) => a.planning_id === planningId).sort((a, b) => a.seq - b.seq);
    return Promise.resolve(structuredClone(found));
  }

  reliability(models?: readonly string[]): Promise<Map<string, ModelReliability>> {
    const out = new Map<string, ModelReliability>();
    for (const [model, counts] of this.#models) {
      if (!models || models.includes(model)) out.set(model, withRates(counts));
    }
    return Promise.resolve(out);
  }

  /** Every attempt recorded, oldest first (tests). */
  all(): PlanningAttempt[] {
    return structuredClone(this.#attempts);
  }
}
