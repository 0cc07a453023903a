/** Request and response schemas of `POST /v1/plans/validate`. */
import { z } from '@hono/zod-openapi';
import { FindingCode } from '../../plan/validate';
import { ValidationConfigSchema } from './config';
import { IMPORT_FIELDS, ImportedPlanSchema } from './import';
import { PlanFieldSchema, PlanSchema } from './plan';
import { strictObject } from './strict-object';

/**
 * A plan to validate: `plan` (a §2 plan or a seed-004 `_tool` array), or `format` with `source`.
 * Neither is `plan: Required`; how `format` and `source` go together is the import's to say.
 */
export const ValidateRequestSchema = strictObject({
  plan: PlanFieldSchema.optional(),
  ...IMPORT_FIELDS,
  input: z.unknown().optional().openapi({
    description:
      'A TEA workflow’s initial state. When given, every key the workflow reads must be in it, as `POST /v1/runs` checks; when left out, the keys are listed in `imported.state_keys`.',
  }),
  input_kinds_only: z.boolean().optional().openapi({
    description:
      "`input` stands in for a run's input by its kinds alone (the approval link's page knows no values): what each `{{ input.… }}` finds and its kind are checked, the values are not held to the tools' schemas",
  }),
  config: ValidationConfigSchema.optional(),
}).refine((v) => v.plan !== undefined || v.format !== undefined || v.source !== undefined, {
  message: 'Required',
  path: ['plan'],
});

export const FindingSchema = z
  .object({
    code: z.enum(FindingCode),
    message: z.string().openapi({ example: 'Cycle detected: a -> b -> a' }),
    step_id: z.string().optional(),
    line: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'The source line of the step, for a plan imported from text' }),
    path: z
      .array(z.union([z.string(), z.number()]))
      .optional()
      .openapi({ description: 'Where in the plan or step parameters' }),
  })
  .openapi('Finding');

export const EstimatesSchema = z
  .object({
    step_count: z.number().int(),
    total_step_count: z.number().int().openapi({ description: 'Steps including every sub-plan’s' }),
    critical_path: z.object({ steps: z.array(z.string()), duration_ms: z.number() }),
    max_width: z.number().int(),
    estimated_tokens: z.number(),
  })
  .openapi('Estimates');

export const UncheckedParametersSchema = z
  .object({
    step_id: z.string(),
    tool: z.string(),
    path: z.array(z.union([z.string(), z.number()])),
    message: z.string().openapi({
      example:
        'Step "s": parameters not checked: the input schema of mcp.files.write could not be read (Conditional schemas (if/then/else) are not supported); its server checks them when the step runs',
    }),
  })
  .openapi('UncheckedParameters');

export const ValidationResponseSchema = z
  .object({
    valid: z.boolean(),
    errors: z.array(FindingSchema),
    unchecked: z.array(UncheckedParametersSchema).optional().openapi({
      description:
        'Steps whose parameters could not be checked: their tool’s input schema (an MCP server’s JSON Schema) could not be read, so any object is taken and the server checks its own. Not errors; present only when there are some',
    }),
    estimates: EstimatesSchema.optional().openapi({ description: 'Present when the plan is well-formed' }),
    plan: PlanSchema.optional().openapi({ description: 'The normalised plan, when well-formed' }),
    imported: ImportedPlanSchema.optional(),
  })
  .openapi('ValidationResult');
