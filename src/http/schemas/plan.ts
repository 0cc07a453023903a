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
import { anyJson } from './json';

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

/**
 * A request field carrying a plan: documented as `Plan` but accepting any JSON, because a malformed
 * plan is a validation finding (`schema`) for the caller to fix, not a rejected request.
 */
export const PlanFieldSchema = anyJson({
  description: 'A plan (see the Plan schema). Any JSON is accepted; problems come back as findings.',
  $ref: '#/components/schemas/Plan',
});
