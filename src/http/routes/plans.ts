/** `POST /v1/plans/validate` — validate a plan without running it (SPEC §2, §6). */
import { createRoute } from '@hono/zod-openapi';
import type { z } from 'zod';
import { toolRegistryFor } from '../tool-registry';
import { validatePlan } from '../../plan/validate';
import type { ValidateOptions, ValidationResult } from '../../plan/validate';
import { errorResponses, V1_BODY_ERRORS, V1_SECURITY } from '../openapi';
import { ValidateRequestSchema, ValidationResponseSchema } from '../schemas/validation';
import type { ValidationConfigSchema } from '../schemas/validation';
import type { App } from '../types';

const validate = createRoute({
  method: 'post',
  path: '/v1/plans/validate',
  tags: ['plans'],
  summary: 'Validate a plan',
  description:
    'Reports every finding at once (unknown tools, bad parameters, unknown dependencies, cycles, limits, ' +
    'references) with estimates for a well-formed plan. A plan with findings is still a 200: ' +
    '`valid` is false. Only a malformed request (e.g. a bad `config` field) is a 400.',
  security: V1_SECURITY,
  request: {
    body: { required: true, content: { 'application/json': { schema: ValidateRequestSchema } } },
  },
  responses: {
    200: {
      description: 'The findings; `valid` is true when there are none',
      content: { 'application/json': { schema: ValidationResponseSchema } },
    },
    ...errorResponses(...V1_BODY_ERRORS),
  },
});

/** Registers `POST /v1/plans/validate`. */
export function registerPlanRoutes(app: App): void {
  app.openapi(validate, (c) => {
    const { plan, config } = c.req.valid('json');
    const result = validatePlan(plan, {
      tools: toolRegistryFor(c.env),
      config: config && validationLimits(config),
      clock: c.var.clock,
      ids: c.var.ids,
    });
    return c.json(toResponse(result), 200);
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

/** Drops `plan` / `estimates` when null, so the response has them only when there is something to show. */
function toResponse(result: ValidationResult) {
  const { valid, errors, plan, estimates } = result;
  return {
    valid,
    errors,
    ...(estimates ? { estimates } : {}),
    ...(plan ? { plan } : {}),
  };
}
