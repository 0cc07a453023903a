/** Request and response schemas of `POST /v1/plans` (seed 001 `plan.decompose`, SPEC §6). */
import { z } from '@hono/zod-openapi';
import { MAX_PLAN_DEPTH } from '../../plan/config';
import type { Strategy } from '../../plan/model';
import { PlanSchema } from './plan';
import { EstimatesSchema, FindingSchema } from './validation';
import { strictObject } from './strict-object';

const PLANNABLE = [
  'flat',
  'hierarchical',
  'iterative',
  'react',
  'par',
  'staged',
] as const satisfies readonly Strategy[];

const steps = z.number().int().min(1).max(1000);

/** A goal to plan, as `POST /v1/plans` and `POST /v1/runs` take it: some text, at most 10,000 characters. */
export const GoalSchema = z.string().trim().min(1).max(10_000);
const promptText = z.string().min(1).max(50_000);

/** The planning options `POST /v1/plans` takes, and `POST /v1/runs` beside `goal` (SPEC §8). */
export const PLANNING_OPTION_FIELDS = {
  model: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: 'First model to try; default PLANNER_MODEL' }),
  temperature: z.number().min(0).max(2).optional(),
  prompt_template: promptText.optional().openapi({
    description: 'Prompt text replacing the template; placeholders such as {{ goal }}, {{ tools }}',
  }),
  planning_prompt: promptText.optional().openapi({ description: 'Seed-000 name for prompt_template' }),
  prompt_template_id: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,128}$/)
    .optional()
    .openapi({ description: 'A template stored in KV under prompt-template:<id>' }),
  n_best: z
    .number()
    .int()
    .min(1)
    .max(5)
    .optional()
    .openapi({ description: 'Candidates per attempt (default 1)' }),
  success_criteria: z.string().max(10_000).optional(),
};

export const PlanGoalRequestSchema = strictObject({
  goal: GoalSchema.openapi({ example: 'Fetch https://example.com then echo done' }),
  strategy: z.enum(PLANNABLE).optional().openapi({ description: 'Default "flat"' }),
  max_depth: z
    .number()
    .int()
    .min(0)
    .max(MAX_PLAN_DEPTH)
    .optional()
    .openapi({ description: 'Sub-plan nesting (hierarchical); default 3' }),
  max_steps: steps.optional().openapi({ description: 'Default 20' }),
  max_subtasks: steps.optional().openapi({ description: 'Seed-001 name for max_steps' }),
  token_budget: z.number().int().positive().optional(),
  ...PLANNING_OPTION_FIELDS,
  tools: z
    .array(z.string().min(1))
    .max(500)
    .optional()
    .openapi({ description: 'Restrict the plan to these tools' }),
  input: z
    .unknown()
    .optional()
    .openapi({
      description:
        'The run input the plan may reference as {{ input.<path> }}; given, a whole reference whose value its ' +
        "parameter cannot take is a bad_reference finding the model is asked to repair, as for a run's plan",
    }),
}).openapi('PlanGoalRequest');

export const TraceEntrySchema = z
  .object({
    planner: z.enum(['llm', 'rules']),
    outcome: z.enum(['ok', 'call_error', 'parse_error', 'invalid', 'no_match']),
    seq: z.number().int().optional(),
    attempt_id: z
      .string()
      .optional()
      .openapi({ description: 'The provenance record (D1 planning_attempts.id)' }),
    model: z.string().optional(),
    retry: z.number().int().optional().openapi({ description: '0 for the first answer, 1… for repairs' }),
    candidate: z.number().int().optional(),
    response_format: z.enum(['json_schema', 'json_object', 'text']).optional(),
    message: z.string().optional(),
    error_code: z
      .string()
      .optional()
      .openapi({ description: 'A call error’s code: `llm_auth_failed`, `llm_rate_limited`, …' }),
    findings: z.array(FindingSchema).optional(),
    rule: z.string().optional(),
    tokens: z
      .object({
        prompt: z.number(),
        completion: z.number(),
        estimated: z.literal(true).optional().openapi({
          description:
            'The server never reported usage (the stream was cut off before it): estimated as 4 characters a token',
        }),
      })
      .optional(),
    latency_ms: z.number().optional(),
  })
  .openapi('PlanningTraceEntry');

export const PlanGoalResponseSchema = z
  .object({
    plan: PlanSchema,
    validation: z.object({
      valid: z.boolean(),
      errors: z.array(FindingSchema),
      estimates: EstimatesSchema.optional(),
    }),
    planning_trace: z.array(TraceEntrySchema),
    success: z.boolean(),
    plan_id: z.string(),
    subtask_count: z.number().int(),
    planner: z.enum(['llm', 'rules']),
    model: z.string().nullable(),
    planning_id: z.string().openapi({ description: 'Groups the provenance records of this request' }),
    tokens: z.object({ prompt: z.number(), completion: z.number(), total: z.number() }),
  })
  .openapi('PlanGoalResult');
