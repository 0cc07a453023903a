/**
 * Per-model planning reliability (seed 003 "Model selection & reliability"): counts kept per
 * attempt, the rates derived from them, and the order fallback models are tried in. Pure.
 */

/** How an LLM planning attempt ended. */
export type AttemptOutcome = 'ok' | 'call_error' | 'parse_error' | 'invalid';

/** What is stored per model. */
export type ModelCounts = {
  model: string;
  attempts: number;
  successes: number;
  parse_failures: number;
  validation_failures: number;
  call_failures: number;
  total_latency_ms: number;
  updated_at: string;
};

/** Counts plus the rates seed 003 names. Rates are 0 for a model with no attempts. */
export type ModelReliability = ModelCounts & {
  parse_fail_rate: number;
  validation_fail_rate: number;
  success_rate: number;
  avg_latency_ms: number;
};

/** A model with no history. */
export function emptyCounts(model: string, at = ''): ModelCounts {
  return {
    model,
    attempts: 0,
    successes: 0,
    parse_failures: 0,
    validation_failures: 0,
    call_failures: 0,
    total_latency_ms: 0,
    updated_at: at,
  };
}

/** The counts after one more attempt. */
export function addAttempt(
  counts: ModelCounts,
  outcome: AttemptOutcome,
  latencyMs: number,
  at: string,
): ModelCounts {
  return {
    ...counts,
    attempts: counts.attempts + 1,
    successes: counts.successes + (outcome === 'ok' ? 1 : 0),
    parse_failures: counts.parse_failures + (outcome === 'parse_error' ? 1 : 0),
    validation_failures: counts.validation_failures + (outcome === 'invalid' ? 1 : 0),
    call_failures: counts.call_failures + (outcome === 'call_error' ? 1 : 0),
    total_latency_ms: counts.total_latency_ms + Math.max(0, latencyMs),
    updated_at: at,
  };
}

/** Counts with their rates. */
export function withRates(c: ModelCounts): ModelReliability {
  const rate = (n: number) => (c.attempts === 0 ? 0 : n / c.attempts);
  return {
    ...c,
    parse_fail_rate: rate(c.parse_failures),
    validation_fail_rate: rate(c.validation_failures),
    success_rate: rate(c.successes),
    avg_latency_ms: c.attempts === 0 ? 0 : c.total_latency_ms / c.attempts,
  };
}

/**
 * How much to trust a model: its success rate smoothed towards ½ (Laplace), so one lucky attempt
 * does not outrank a long good record and a model with no history sits in the middle.
 */
export function reliabilityScore(r: ModelCounts | undefined): number {
  if (!r) return 0.5;
  return (r.successes + 1) / (r.attempts + 2);
}

/**
 * The order models are tried in: `primary` first (the caller's or the operator's choice), then the
 * fallbacks by {@link reliabilityScore}, best first; equal scores keep the lower average latency,
 * then the configured order. Duplicates are dropped.
 * @example orderModels('gpt-4o', ['a', 'b'], stats) // ['gpt-4o', 'b', 'a'] when b has the better record
 */
export function orderModels(
  primary: string,
  fallbacks: readonly string[],
  stats: ReadonlyMap<string, ModelCounts>,
): string[] {
  const seen = new Set([primary]);
  const rest = fallbacks.filter((m) => !seen.has(m) && (seen.add(m), true));
  const latency = (m: string) => {
    const s = stats.get(m);
    return s && s.attempts > 0 ? s.total_latency_ms / s.attempts : Number.POSITIVE_INFINITY;
  };
  const ranked = rest
    .map((model, index) => ({ model, index, score: reliabilityScore(stats.get(model)) }))
    .sort((a, b) => b.score - a.score || latency(a.model) - latency(b.model) || a.index - b.index);
  return [primary, ...ranked.map((r) => r.model)];
}
