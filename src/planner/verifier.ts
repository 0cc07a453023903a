/**
 * N-best selection (seed 003 "Verifier"): among candidate plans generated together, prefer a valid
 * one, then the fewest findings, then the shortest critical path, then the fewest steps. Pure; a
 * smarter verifier (a small LLM) can replace it through `PlannerDeps.verifier`.
 */
import type { Estimates } from '../plan/estimates';
import type { Finding } from '../plan/findings';

/** What the verifier sees of a candidate. */
export type Candidate = {
  index: number;
  /** Whether the answer parsed into a plan at all. */
  parsed: boolean;
  findings: readonly Finding[];
  estimates: Estimates | null;
};

/**
 * The index (into `candidates`) of the best one, or -1 for an empty list.
 * @example pickBest([{ index: 0, parsed: true, findings: [], estimates }, …])
 */
export function pickBest(candidates: readonly Candidate[]): number {
  let best = -1;
  for (let i = 0; i < candidates.length; i++) {
    if (best === -1 || compare(candidates[i]!, candidates[best]!) < 0) best = i;
  }
  return best;
}

/** Negative when `a` is better than `b`. */
function compare(a: Candidate, b: Candidate): number {
  if (a.parsed !== b.parsed) return a.parsed ? -1 : 1;
  const byFindings = a.findings.length - b.findings.length;
  if (byFindings !== 0) return byFindings;
  const path = (c: Candidate) => c.estimates?.critical_path.duration_ms ?? Number.POSITIVE_INFINITY;
  if (path(a) !== path(b)) return path(a) < path(b) ? -1 : 1;
  const steps = (c: Candidate) => c.estimates?.step_count ?? Number.POSITIVE_INFINITY;
  if (steps(a) !== steps(b)) return steps(a) < steps(b) ? -1 : 1;
  return a.index - b.index;
}
