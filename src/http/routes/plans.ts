/**
 * `/v1/plans` (SPEC §6): `POST /v1/plans` plans a goal (seed 001 `plan.decompose`), `POST
 * /v1/plans/validate` validates a plan — native or imported, as `POST /v1/runs` takes it — without
 * running it (SPEC §2).
 */
import { createRoute } from '@hono/zod-openapi';
import type { z } from 'zod';
import { prepareRunPlan, withSourceLines } from '../../import/run-request';
import type { PreparedRun } from '../../import/run-request';
import { DEFAULT_MAX_STEPS } from '../../plan/config';
import { validatePlan } from '../../plan/validate';
import type { ValidateOptions, ValidationResult } from '../../plan/validate';
import { planGoal } from '../../planner/pipeline';
import type { PlanningSuccess } from '../../planner/types';
import { plannerDepsFor } from '../../planner/worker-deps';
import { jsonError } from '../errors';
import { requireBody } from '../middleware/require-body';
import { errorResponses, V1_BODY_ERRORS, V1_SECURITY } from '../openapi';
import { PlanGoalRequestSchema, PlanGoalResponseSchema } from '../schemas/planning';
import { ValidateRequestSchema, ValidationResponseSchema } from '../schemas/validation';
import type { ValidationConfigSchema } from '../schemas/config';
import type { App } from '../types';

const validate = createRoute({
  method: 'post',
  path: '/v1/plans/validate',
  operationId: 'validatePlan',
  tags: ['plans'],
  summary: 'Validate a plan',
  description:
    'Reports every finding at once (unknown tools, bad parameters, unknown dependencies, cycles, limits, ' +
    'references) with estimates for a well-formed plan. A plan with findings is still a 200: ' +
    '`valid` is false. Only a malformed request (e.g. a bad `config` field) is a 400. Accepts what ' +
    '`POST /v1/runs` accepts: a §2 `plan`, a seed-004 `_tool` array as `plan`, or `format` ' +
    '(`tea-yaml`, `llmcompiler`) with `source`; an import is validated as converted, its findings carry ' +
    'the source `line`, and `imported` shows what it became. A source that does not convert is a ' +
    '`422 invalid_plan` with every problem in `details.errors`, as for runs.',
  security: V1_SECURITY,
  middleware: [
    requireBody(
      '{"plan": …} (a plan or a seed-004 _tool array) or {"format": "tea-yaml" | "llmcompiler", "source": "…"}; "input" and "config" are optional',
    ),
  ],
  request: {
    body: { required: true, content: { 'application/json': { schema: ValidateRequestSchema } } },
  },
  responses: {
    200: {
      description: 'The findings; `valid` is true when there are none',
      content: { 'application/json': { schema: ValidationResponseSchema } },
    },
    ...errorResponses(...V1_BODY_ERRORS, 422),
  },
});

const plan = createRoute({
  method: 'post',
  path: '/v1/plans',
  operationId: 'planGoal',
  tags: ['plans'],
  summary: 'Plan a goal (plan.decompose)',
  description:
    'Turns a goal into a validated plan: the LLM planner (OPENAI_API_KEY / OPENAI_BASE_URL, PLANNER_MODEL, ' +
    'PLANNER_FALLBACK_MODELS) with repair prompts and model fallback, then the rule-based planner. Every LLM ' +
    'attempt is in `planning_trace` and stored as provenance. Nothing is executed. `422 planning_failed` ' +
    'carries the trace in `details.planning_trace`; `422 planning_unavailable` names the variables to set.',
  security: V1_SECURITY,
  middleware: [
    requireBody(
      '{"goal": "…"}; "strategy", "max_steps", "max_depth", "tools", "input" and the other planning options are optional',
    ),
  ],
  request: {
    body: { required: true, content: { 'application/json': { schema: PlanGoalRequestSchema } } },
  },
  responses: {
    201: {
      description: 'A valid plan, how it was made, and its estimates',
      content: { 'application/json': { schema: PlanGoalResponseSchema } },
    },
    ...errorResponses(...V1_BODY_ERRORS, 422),
  },
});

/** Registers `POST /v1/plans` and `POST /v1/plans/validate`. */
export function registerPlanRoutes(app: App): void {
  app.openapi(plan, async (c) => {
    const body = c.req.valid('json');
    const deps = plannerDepsFor(c.env, { tools: c.var.tools(), clock: c.var.clock, ids: c.var.ids });
    // The pipeline resolves the seed aliases (max_subtasks, planning_prompt) itself.
    const outcome = await planGoal(body, deps);
    if (!outcome.ok) {
      const { code, message, details } = outcome.error;
      return code === 'invalid_request' ? jsonError(c, code, message) : jsonError(c, code, message, details);
    }
    return c.json(toPlanResponse(outcome), 201);
  });

  app.openapi(validate, (c) => {
    const { plan, format, source, input, input_kinds_only, config } = c.req.valid('json');
    // The same conversion as POST /v1/runs; without an `input`, a TEA workflow's initial state is
    // not checked (there is none to check) but listed.
    const tools = c.var.tools();
    const prepared = prepareRunPlan(
      { plan, format, source, input },
      {
        requireState: input !== undefined,
        inputFields: (tool) => tools.inputFields(tool),
        hasTool: (tool) => tools.has(tool),
        toolNames: () => tools.names(),
        maxSteps: config?.max_steps ?? DEFAULT_MAX_STEPS,
      },
    );
    // Refused before converting for a limit (too many steps): the findings validation would give.
    if (!prepared.ok && prepared.findings) return c.json({ valid: false, errors: prepared.findings }, 200);
    if (!prepared.ok) {
      const { code, message, details } = prepared.error;
      return jsonError(c, code, message, details);
    }
    const result = validatePlan(prepared.plan, {
      tools,
      config: config && validationLimits(config),
      clock: c.var.clock,
      ids: c.var.ids,
      refuseUnknownKeys: true,
      // With an input, as POST /v1/runs holds the plan to it.
      ...(input !== undefined ? { runInput: { value: input, kindsOnly: input_kinds_only === true } } : {}),
    });
    return c.json(toResponse(result, prepared), 200);
  });
}

/** The limits validation checks, from a parsed config. */
function validationLimits(config: z.output<typeof ValidationConfigSchema>): ValidateOptions['config'] {
  const { max_steps, max_depth, token_budget, require_dependencies, require_fallbacks } = config;
  const limits: NonNullable<ValidateOptions['config']> = { max_steps, max_depth, require_fallbacks };
  // Absent rather than undefined, so a `{...defaults, ...limits}` merge keeps the defaults.
  if (token_budget != null) limits.token_budget = token_budget;
  if (require_dependencies !== undefined) limits.require_dependencies = require_dependencies;
  return limits;
}

/**
 * Drops `plan` / `estimates` when null, so the response has them only when there is something to
 * show; an imported plan adds `imported` and the source line of each finding about a step.
 */
function toResponse(result: ValidationResult, prepared: Extract<PreparedRun, { ok: true }>) {
  const { valid, errors, plan, estimates, unchecked } = result;
  const { format, lines, stateKeys } = prepared;
  return {
    valid,
    errors: withSourceLines(errors, lines),
    ...(unchecked ? { unchecked } : {}),
    ...(estimates ? { estimates } : {}),
    ...(plan ? { plan } : {}),
    ...(format
      ? {
          imported: {
            format,
            plan: prepared.plan,
            ...(lines ? { lines } : {}),
            ...(stateKeys ? { state_keys: stateKeys } : {}),
          },
        }
      : {}),
  };
}

/** seed 001's `plan.decompose` return shape with the §2 plan and the validation result. */
function toPlanResponse(out: PlanningSuccess) {
  const { estimates, ...validation } = out.validation;
  return {
    plan: out.plan,
    validation: { ...validation, ...(estimates ? { estimates } : {}) },
    planning_trace: out.planning_trace,
    success: true,
    plan_id: out.plan.id,
    subtask_count: out.plan.steps.length,
    planner: out.planner,
    model: out.model,
    planning_id: out.planning_id,
    tokens: out.tokens,
  };
}
