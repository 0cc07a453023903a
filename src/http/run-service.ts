/**
 * Starting a run from an HTTP request: parse the config, validate the plan, hand it to a new PlanRun
 * object. Errors come back as data with a stable code for the route to send.
 */
import type { RunConfig } from '../plan/config';
import type { Clock, IdSource } from '../plan/model';
import { validatePlan, type ValidationResult } from '../plan/validate';
import type { ToolRegistry } from '../executor/registry';
import type { StepMessage } from '../durable/messages';

export type StartRun = {
  goal?: string;
  plan?: unknown;
  format?: 'tea-yaml' | 'llmcompiler';
  source?: string;
  config: RunConfig;
  /** Whether the caller set `require_dependencies` (submitted plans may derive dependencies). */
  requireDependencies: boolean;
  input: unknown;
};

export type StartResult =
  | { kind: 'created'; run_id: string; status: string }
  | { kind: 'dry_run'; validation: ValidationResult }
  | {
      kind: 'error';
      code: 'invalid_plan' | 'invalid_request' | 'planning_unavailable' | 'conflict';
      message: string;
      details?: unknown;
    };

export async function startRun(
  req: StartRun,
  deps: { env: Env; tools: ToolRegistry; clock: Clock; ids: IdSource },
): Promise<StartResult> {
  if (req.format !== undefined) {
    return {
      kind: 'error',
      code: 'invalid_request',
      message: `Import format "${req.format}" is not supported by this server yet; send a plan as JSON in "plan"`,
    };
  }
  if (req.plan === undefined) {
    if (req.goal === undefined) {
      return {
        kind: 'error',
        code: 'invalid_request',
        message: 'Send either "plan" (a plan to run) or "goal" (a goal to plan), or "format" with "source"',
      };
    }
    return {
      kind: 'error',
      code: 'planning_unavailable',
      message:
        'Planning a goal needs an LLM planner, which this server does not offer yet: send a ready plan in "plan" instead',
    };
  }
  const { config } = req;
  const validation = validatePlan(req.plan, {
    tools: deps.tools,
    clock: deps.clock,
    ids: deps.ids,
    config: {
      max_steps: config.max_steps,
      max_depth: config.max_depth,
      require_fallbacks: config.require_fallbacks,
      require_dependencies: req.requireDependencies,
      ...(config.token_budget != null ? { token_budget: config.token_budget } : {}),
    },
  });
  if (!validation.valid || !validation.plan) {
    const n = validation.errors.length;
    const first = validation.errors[0]?.message ?? 'invalid plan';
    return {
      kind: 'error',
      code: 'invalid_plan',
      message: `The plan has ${n} finding${n === 1 ? '' : 's'}: ${first}${n > 1 ? ' (all findings are in details.errors)' : ''}`,
      details: { errors: validation.errors },
    };
  }
  if (config.mode === 'lazy') return { kind: 'dry_run', validation };

  const plan = validation.plan;
  if (req.goal !== undefined && plan.goal === '') plan.goal = req.goal;
  const run_id = deps.ids.id('run');
  const stub = deps.env.PLAN_RUN.getByName(run_id);
  const created = await stub.create({
    run_id,
    goal: plan.goal,
    plan,
    config,
    input: req.input ?? {},
    estimates: validation.estimates,
  });
  if (!created.ok) return { kind: 'error', code: 'conflict', message: created.error.message };
  await sendSteps(deps.env, created.value.outbox);
  return { kind: 'created', run_id, status: created.value.status };
}

/** Sends a new run's first ready steps; one that cannot be sent is retried at its deadline. */
async function sendSteps(env: Env, messages: StepMessage[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 100) {
    await env.STEPS.sendBatch(messages.slice(i, i + 100).map((body) => ({ body }))).catch((err: unknown) => {
      console.error(
        `run ${messages[0]?.run_id}: first steps not queued; their deadlines will retry them`,
        err,
      );
    });
  }
}
