/** Request and response schemas of `POST /v1/plans/validate`. */
import { z } from '@hono/zod-openapi';
import { RunConfigSchema, applyConfigAliases } from '../../plan/config';
import { FindingCode } from '../../plan/validate';
import { PlanFieldSchema, PlanSchema } from './plan';

/**
 * The run configuration as validation reads it: the canonical schema with its aliases
 * (`max_subtasks`, …) accepted, except that `require_dependencies` has no default — submitted plans
 * may leave dependencies to their references, so the check is on only when the caller asks for it.
 */
export const ValidationConfigSchema = z
  .preprocess(
    (v) => applyConfigAliases(v ?? {}),
    RunConfigSchema.extend({
      require_dependencies: z
        .boolean()
        .optional()
        .openapi({ description: 'Every step must list its dependencies (off unless set)' }),
    }),
  )
  .openapi('ValidationConfig', {
    description: 'Run configuration (SPEC §4); seed aliases such as max_subtasks are accepted',
  });

export const ValidateRequestSchema = z.object({
  plan: PlanFieldSchema,
  config: ValidationConfigSchema.optional(),
});

export const FindingSchema = z
  .object({
    code: z.enum(FindingCode),
    message: z.string().openapi({ example: 'Cycle detected: a -> b -> a' }),
    step_id: z.string().optional(),
    path: z
      .array(z.union([z.string(), z.number()]))
      .optional()
      .openapi({ description: 'Where in the plan or step parameters' }),
  })
  .openapi('Finding');

export const EstimatesSchema = z
  .object({
    step_count: z.number().int(),
    critical_path: z.object({ steps: z.array(z.string()), duration_ms: z.number() }),
    max_width: z.number().int(),
    estimated_tokens: z.number(),
  })
  .openapi('Estimates');

export const ValidationResponseSchema = z
  .object({
    valid: z.boolean(),
    errors: z.array(FindingSchema),
    estimates: EstimatesSchema.optional().openapi({ description: 'Present when the plan is well-formed' }),
    plan: PlanSchema.optional().openapi({ description: 'The normalised plan, when well-formed' }),
  })
  .openapi('ValidationResult');
