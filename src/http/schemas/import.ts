/** The import fields `POST /v1/runs` and `POST /v1/plans/validate` share (src/import converts them). */
import { z } from '@hono/zod-openapi';
import { anyJson } from './json';

/** `format` and `source`: a plan to import instead of a `plan`. */
export const IMPORT_FIELDS = {
  format: z.enum(['tea-yaml', 'llmcompiler']).optional().openapi({
    description:
      'Import `source` instead of sending `plan`: a TEA YAML workflow (seed 001; `input` is its initial state) or an LLMCompiler plan. A `_tool` call array (seed 004) goes in `plan` directly.',
  }),
  source: z.string().optional().openapi({ description: 'The workflow or plan text, with `format`' }),
};

/** What an imported plan became, beside its validation. */
export const ImportedPlanSchema = z
  .object({
    format: z.enum(['tea-yaml', 'llmcompiler', 'tool-calls']),
    plan: anyJson({
      description: 'The plan the import converted to, as validation received it (before defaults)',
      $ref: '#/components/schemas/Plan',
    }),
    lines: z
      .record(z.string(), z.number().int())
      .optional()
      .openapi({ description: 'Step id → the line of the source it came from' }),
    state_keys: z.array(z.string()).optional().openapi({
      description:
        'TEA: the initial-state keys the workflow reads before any node writes them (send them in `input`)',
    }),
  })
  .openapi('ImportedPlan', {
    description: 'What an imported plan became (`format` + `source`, or a seed-004 `_tool` array as `plan`)',
  });
