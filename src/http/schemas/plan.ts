/**
 * The plan as the OpenAPI document shows it, built from the model's own zod schemas
 * (src/plan/model.ts) so the two cannot drift.
 *
 * The model ties its recursion (a step's `subplan` is a plan) with getters on unnamed schemas,
 * which the OpenAPI generator follows forever. Here the two recursive fields are re-declared to
 * point at named components (`Plan`, `PlanStep`), which the generator emits as `$ref`s.
 */
import { z } from '@hono/zod-openapi';
import { PlanInputSchema, PlanStepInputSchema } from '../../plan/model';

/** A step as submitted (SPEC §2), the `PlanStep` component. */
export const PlanStepSchema: z.ZodType = PlanStepInputSchema.extend({
  // No `.openapi({description})` here: metadata on the wrapper makes the generator inline the plan.
  get subplan() {
    return PlanSchema.nullish();
  },
}).openapi('PlanStep');

/** A plan as submitted (SPEC §2), the `Plan` component. Omitted fields are filled in on normalisation. */
export const PlanSchema: z.ZodType = PlanInputSchema.extend({
  get steps() {
    return z.array(PlanStepSchema);
  },
}).openapi('Plan');

/** Seed 004's data-flow plan: `{ _tool, ...parameters, _outputPath? }` calls, or `{ calls: [...] }`. */
export const ToolCallSchema = z
  .object({
    _tool: z.string().openapi({ description: 'The action', example: 'demo.echo' }),
    _outputPath: z
      .string()
      .optional()
      .openapi({ description: 'Where the output goes: `†state.a`, or `†state.ok || †state.err`' }),
  })
  .catchall(z.unknown())
  .openapi('ToolCall', { description: 'One seed-004 call; every other key is a parameter' });

/**
 * A request field carrying a plan: documented as a `Plan` or a seed-004 call list, but accepting any
 * JSON, because a malformed plan is a validation finding (`schema`) for the caller to fix, not a
 * rejected request.
 */
export const PlanFieldSchema = z
  .unknown()
  // `: boolean` keeps the output type `unknown`: an inferred type predicate would narrow it.
  .refine((v): boolean => v !== undefined, { message: 'Required' })
  .openapi({
    description:
      'A plan (the Plan schema), or a seed-004 call list (`[{_tool, …}]` or `{calls: [...]}`). Any JSON is accepted; problems come back as findings.',
    anyOf: [
      { $ref: '#/components/schemas/Plan' },
      { type: 'array', items: { $ref: '#/components/schemas/ToolCall' } },
      {
        type: 'object',
        properties: {
          calls: { type: 'array', items: { $ref: '#/components/schemas/ToolCall' } },
          output: {},
        },
        required: ['calls'],
      },
    ],
  });
