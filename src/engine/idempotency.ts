/**
 * The idempotency key a step's effect carries (SPEC §4): `<run>:<step>`, the same for every attempt —
 * retries after a timeout, a fallback, a redelivered message, a resumed run — so the receiving API can
 * deduplicate; plus `:v<version>` once a plan revision replaced the step with a different definition,
 * because that is a different effect; plus `:visit<n>` for a TEA graph run's n-th visit of a node (n > 1). The attempt number travels beside it, never inside it.
 */
import type { StepRuntime } from './state';

/**
 * @example stepEffectKey('run_1', 'charge', { key_version: 0 }) // 'run_1:charge'
 * @example stepEffectKey('run_1', 'charge', { key_version: 3 }) // 'run_1:charge:v3'
 */
export function stepEffectKey(
  runId: string,
  stepId: string,
  rt: Pick<StepRuntime, 'key_version'> & { visit?: number },
): string {
  const v = rt.key_version ?? 0;
  const base = v > 0 ? `${runId}:${stepId}:v${v}` : `${runId}:${stepId}`;
  // A TEA graph run's second visit of a node is a new effect too.
  return (rt.visit ?? 0) > 1 ? `${base}:visit${rt.visit}` : base;
}
