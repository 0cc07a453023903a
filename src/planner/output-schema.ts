/**
 * The JSON schema of the answer the planner asks for, derived from the plan model's zod schemas so
 * the two cannot drift. Sent as a non-strict `response_format: json_schema` — strict modes cannot
 * express free-form `parameters` (SPEC §3).
 */
import { z } from 'zod';
import { PlanStepInputSchema } from '../plan/model';

/** The step fields a model is asked for; `dependencies` is required (`require_dependencies`). */
const LlmStepSchema = PlanStepInputSchema.pick({
  id: true,
  description: true,
  action: true,
  parameters: true,
  expected_output: true,
  fallback_action: true,
  estimated_tokens: true,
  output_path: true,
  when: true,
}).extend({ dependencies: z.array(z.string()) });

const FlatPlanSchema = z.object({
  goal: z.string().optional(),
  success_criteria: z.string().optional(),
  steps: z.array(LlmStepSchema),
});

type LlmPlan = {
  goal?: string;
  success_criteria?: string;
  steps: Array<z.infer<typeof LlmStepSchema> & { subplan?: LlmPlan | null }>;
};

const HierarchicalStepSchema: z.ZodType<LlmPlan['steps'][number]> = LlmStepSchema.extend({
  get subplan() {
    return HierarchicalPlanSchema.nullish();
  },
});

const HierarchicalPlanSchema: z.ZodType<LlmPlan> = z.object({
  goal: z.string().optional(),
  success_criteria: z.string().optional(),
  get steps() {
    return z.array(HierarchicalStepSchema);
  },
});

const cache = new Map<boolean, Record<string, unknown>>();

/**
 * The answer's JSON schema; with `hierarchical`, steps may carry a `subplan` of the same shape.
 * @example response_format: { type: 'json_schema', json_schema: { name: 'plan', schema: planOutputSchema(false), strict: false } }
 */
export function planOutputSchema(hierarchical: boolean): Record<string, unknown> {
  let schema = cache.get(hierarchical);
  if (!schema) {
    const json = z.toJSONSchema(hierarchical ? HierarchicalPlanSchema : FlatPlanSchema, {
      io: 'input',
      unrepresentable: 'any',
    }) as Record<string, unknown>;
    delete json.$schema;
    schema = json;
    cache.set(hierarchical, schema);
  }
  return schema;
}
