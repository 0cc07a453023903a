/**
 * Plan validation (SPEC §2): every finding at once, each with a stable code. Pure and linear.
 * STUB: signatures are the contract; the implementation is being written.
 */
import type { RunConfig } from './config';
import type { Clock, IdSource, Plan } from './model';
import type { PathSegment } from './references';
import type { ToolRegistry } from '../executor/registry';
import type { Estimates } from './estimates';

export const FindingCode = {
  schema: 'schema',
  duplicate_step: 'duplicate_step',
  unknown_tool: 'unknown_tool',
  invalid_parameters: 'invalid_parameters',
  unknown_dependency: 'unknown_dependency',
  cycle: 'cycle',
  too_many_steps: 'too_many_steps',
  too_deep: 'too_deep',
  token_budget: 'token_budget',
  missing_dependencies: 'missing_dependencies',
  missing_fallback: 'missing_fallback',
  bad_reference: 'bad_reference',
} as const;
export type FindingCode = (typeof FindingCode)[keyof typeof FindingCode];

export type Finding = { code: FindingCode; message: string; step_id?: string; path?: PathSegment[] };

export type ValidateOptions = {
  tools: ToolRegistry;
  /** Limits; missing fields take RunConfig defaults. `require_dependencies` is off unless given. */
  config?: Partial<
    Pick<RunConfig, 'max_steps' | 'max_depth' | 'token_budget' | 'require_dependencies' | 'require_fallbacks'>
  >;
  clock: Clock;
  ids: IdSource;
  /** Observed mean latency per tool name (ms), for estimates. */
  latencyHistory?: Record<string, number>;
};

export type ValidationResult = {
  valid: boolean;
  errors: Finding[];
  /** The normalised plan when the input was well-formed (even if other findings exist), else null. */
  plan: Plan | null;
  estimates: Estimates | null;
};

export function validatePlan(_raw: unknown, _opts: ValidateOptions): ValidationResult {
  throw new Error('not implemented');
}
