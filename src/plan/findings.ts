/**
 * Validation findings (SPEC §2): stable codes, and where each problem is. Issues as data; the
 * message is for people and for the LLM repair prompt, the code for programs.
 */
import type { ErrorCode } from '../error-codes';
import type { PathSegment } from './references';

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
} as const satisfies Record<string, ErrorCode>;
export type FindingCode = (typeof FindingCode)[keyof typeof FindingCode];

/**
 * One problem. `step_id` names the step (`parent/child` inside sub-plans); `path` is where in that
 * step (`['parameters', 'url']`) or, for `schema`, where in the submitted plan.
 */
export type Finding = { code: FindingCode; message: string; step_id?: string; path?: PathSegment[] };

/** The limits validation enforces, resolved from the run configuration. */
export type Limits = {
  max_steps: number;
  max_depth: number;
  token_budget: number | null;
  require_dependencies: boolean;
  require_fallbacks: boolean;
};

/**
 * A run's input a plan is checked against (validate.ts `runInput`); `kindsOnly`: the value stands in
 * for the run's by its kinds alone, so its values are not held to the tools' schemas.
 */
export type RunInput = { value: unknown; kindsOnly?: boolean };
