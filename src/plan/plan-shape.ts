/**
 * A fast structural check for the common plan shape. zod stays the source of truth: this only says
 * "certainly well-formed", never "bad"; when it is unsure, validation runs {@link PlanInputSchema}
 * for the verdict and the messages. It exists because zod over a 100k-step plan takes ~250 ms, most
 * of the validation budget, while this takes a few. It must accept nothing the schema rejects:
 * `test/unit/plan-shape.test.ts` holds the two side by side.
 */
import { MAX_RETRIES, MAX_WAIT_S } from './limits';
import { STEP_ID_PATTERN, Strategy } from './model';
import type { PlanInput } from './model';

const STRATEGIES: ReadonlySet<unknown> = new Set(Object.values(Strategy));

/** True only when `PlanInputSchema.parse(v)` would succeed and return an equivalent value. */
export function isPlainPlanInput(v: unknown, depth = 0): v is PlanInput {
  if (!isPlainObject(v) || depth > 32) return false;
  if (!optional(v.id, isNonEmptyString)) return false;
  if (!optional(v.version, isPositiveInt)) return false;
  if (!optional(v.goal, isString)) return false;
  if (v.strategy !== undefined && !STRATEGIES.has(v.strategy)) return false;
  if (!nullish(v.success_criteria, isString)) return false;
  if (!optional(v.created_at, isString)) return false;
  if (!nullish(v.estimated_total_tokens, isNonNegativeInt)) return false;
  if (!optional(v.metadata, isPlainObject)) return false;
  const steps = v.steps;
  if (!Array.isArray(steps)) return false;
  for (let i = 0; i < steps.length; i++) if (!isPlainStep(steps[i], depth)) return false;
  return true;
}

function isPlainStep(s: unknown, depth: number): boolean {
  if (!isPlainObject(s)) return false;
  if (typeof s.id !== 'string' || !STEP_ID_PATTERN.test(s.id)) return false;
  if (!optional(s.description, isString)) return false;
  if (!optional(s.action, isNonEmptyString)) return false;
  if (!nullish(s.parameters, isPlainObject)) return false;
  if (!nullish(s.dependencies, isStringArray)) return false;
  if (!nullish(s.expected_output, isString)) return false;
  if (!nullish(s.fallback_action, isFallback)) return false;
  if (!nullish(s.estimated_tokens, isNonNegativeInt)) return false;
  if (!nullish(s.output_path, isNonEmptyString)) return false;
  if (!nullish(s.when, isNonEmptyString)) return false;
  if (s.subplan != null && !isPlainPlanInput(s.subplan, depth + 1)) return false;
  if (!nullish(s.timeout_ms, isStepTimeout)) return false;
  if (!nullish(s.retries, isRetries)) return false;
  return true;
}

/** Unknown keys elsewhere are harmless (normalisation picks known fields); here the object is kept whole. */
function isFallback(v: unknown): boolean {
  if (isNonEmptyString(v)) return true;
  if (!isPlainObject(v)) return false;
  for (const k in v) if (k !== 'action' && k !== 'parameters') return false;
  return isNonEmptyString(v.action) && optional(v.parameters, isPlainObject);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

const isString = (v: unknown): boolean => typeof v === 'string';
const isNonEmptyString = (v: unknown): boolean => typeof v === 'string' && v.length > 0;
const isPositiveInt = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) > 0;
// A timeout over MAX_WAIT_S passed here once: its deadline was a date no alarm takes (after 2189), and
// the run's object threw on every alarm it tried to set.
const isStepTimeout = (v: unknown): boolean => isPositiveInt(v) && (v as number) <= MAX_WAIT_S * 1000;
const isRetries = (v: unknown): boolean => isNonNegativeInt(v) && (v as number) <= MAX_RETRIES;
const isNonNegativeInt = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;

function isStringArray(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return false;
  return true;
}

function optional(v: unknown, check: (v: unknown) => boolean): boolean {
  return v === undefined || check(v);
}

function nullish(v: unknown, check: (v: unknown) => boolean): boolean {
  return v === undefined || v === null || check(v);
}
