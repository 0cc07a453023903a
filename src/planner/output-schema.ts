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
    });
    schema = simplify(json) as Record<string, unknown>;
    cache.set(hierarchical, schema);
  }
  return schema;
}

/**
 * Drops what some servers' schema dialects refuse and no model needs: `$schema`, `propertyNames`
 * (JSON keys are strings anyway) and zod's safe-integer bounds.
 */
function simplify(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(simplify);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || key === 'propertyNames') continue;
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    out[key] = simplify(value);
  }
  return out;
}
