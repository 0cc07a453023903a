/**
 * Starting a run from an HTTP request: parse the config, validate the plan, hand it to a new PlanRun
 * object. Errors come back as data with a stable code for the route to send.
 */
import { validationLimits, type RunConfig } from '../plan/config';
import type { Clock, IdSource, Plan, RunStatus } from '../plan/model';
import { validatePlan, type ValidationResult } from '../plan/validate';
import type { ToolRegistry } from '../executor/registry';
import { plannerConfigured } from '../durable/planner-config';
import type { Estimates } from '../plan/estimates';
import { planGoal } from '../planner/pipeline';
import { plannerDepsFor } from '../planner/worker-deps';
import { sendSteps } from '../durable/fan-out';
import { createConfirmed } from '../durable/confirmed-create';
import { runObject, type RunObject } from '../durable/run-object';
import { prepareRunPlan, withSourceLines } from '../import/run-request';
import { webhookUrlProblem } from './webhook-url-check';

export type StartRun = {
  goal?: string;
  plan?: unknown;
  format?: 'tea-yaml' | 'llmcompiler';
  source?: string;
  config: RunConfig;
  /** Whether the caller set `require_dependencies` (submitted plans may derive dependencies). */
  requireDependencies: boolean;
  /** Whether the caller chose `on_step_failure` (or `on_subtask_failure`) rather than its default. */
  failureStrategyGiven?: boolean;
  input: unknown;
  /**
   * The request's `Idempotency-Key`, as the run id it names (http/idempotency-key.ts) and its body's
   * fingerprint: the run is created under that id, or found there by a retry.
   */
  idempotency?: { run_id: string; fingerprint: string } | undefined;
};

/**
 * The failure strategy a run gets when the caller chose none (SPEC §4): a goal the planner plans
 * revises a failed step's plan while `allow_revision` is on (seed 000's default) and a planner is
 * there to revise it; a submitted or imported plan is nobody's to rewrite unless asked, so it aborts.
 */
export function defaultFailureStrategy(req: StartRun, planned: boolean, canRevise: boolean): RunConfig {
  if (req.failureStrategyGiven || !planned || !canRevise || !req.config.allow_revision) return req.config;
  return { ...req.config, on_step_failure: 'replan' };
}

export type StartResult =
  /** `replayed`: the request's Idempotency-Key had created the run already; nothing new was started. */
  | { kind: 'created'; run_id: string; status: RunStatus; replayed: boolean }
  | { kind: 'dry_run'; validation: ValidationResult }
  | {
      kind: 'error';
      code:
        | 'invalid_plan'
        | 'invalid_request'
        | 'payload_too_large'
        | 'planning_unavailable'
        | 'planning_failed'
        | 'conflict'
        | 'idempotency_key_reused'
        | 'decision_failed'
        | 'deploy_in_progress';
      message: string;
      details?: unknown;
    };

/** What a create's own refusals are: a request refused before them may still name a keyed run. */
const CREATE_REFUSALS: ReadonlySet<string> = new Set([
  'conflict',
  'idempotency_key_reused',
  'deploy_in_progress',
]);

/**
 * Starts the run a request asks for (`POST /v1/runs`, `start_run`): validated or planned here, then
 * created in its object. A request refused before its run is created — a plan this release refuses,
 * a goal it cannot plan — whose Idempotency-Key's run exists is answered as a create finds it: a retry
 * of the request that created the run gets that run (though the tools it names may be listed
 * differently since, an MCP server out of reach), another body the key's reuse.
 */
export async function startRun(
  req: StartRun,
  deps: { env: Env; tools: ToolRegistry; clock: Clock; ids: IdSource; origin: string },
): Promise<StartResult> {
  const result = await prepareAndCreate(req, deps);
  if (result.kind !== 'error' || !req.idempotency || CREATE_REFUSALS.has(result.code)) return result;
  return (await keyedRun(deps.env.PLAN_RUN, req.idempotency)) ?? result;
}

/** The run an Idempotency-Key made, as a create would answer it; null when there is none to find. */
async function keyedRun(
  ns: Env['PLAN_RUN'],
  key: { run_id: string; fingerprint: string },
): Promise<StartResult | null> {
  let found: Awaited<ReturnType<RunObject['keyedRun']>>;
  try {
    found = await runObject(ns, key.run_id).keyedRun(key.fingerprint);
  } catch {
    // An object on an older release (no such method), or a run it cannot read: the refusal stands.
    return null;
  }
  if (found === null) return null;
  if (!found.ok)
    return {
      kind: 'error',
      code: 'idempotency_key_reused',
      message: found.error.message,
      details: found.error.details,
    };
  return { kind: 'created', run_id: key.run_id, status: found.value.status, replayed: true };
}

async function prepareAndCreate(
  req: StartRun,
  deps: { env: Env; tools: ToolRegistry; clock: Clock; ids: IdSource; origin: string },
): Promise<StartResult> {
  // A webhook this deployment could never send is refused now, not found later in the run's trace.
  const webhook = webhookUrlProblem(req.config.approval?.webhook_url, deps.env);
  if (webhook) {
    return {
      kind: 'error',
      code: 'invalid_request',
      message: webhook,
      details: { issues: [{ path: ['config', 'approval', 'webhook_url'], message: webhook }] },
    };
  }
  // Seed-004 call lists and `{format, source}` become plan candidates here (src/import).
  const prepared = prepareRunPlan(req, {
    inputFields: (tool) => deps.tools.inputFields(tool),
    hasTool: (tool) => deps.tools.has(tool),
    toolNames: () => deps.tools.names(),
    maxSteps: req.config.max_steps,
  });
  if (!prepared.ok) return { kind: 'error', ...prepared.error };
  let candidate = prepared.plan;
  // A plan the caller wrote refuses keys it does not know; one the planner made has none to refuse.
  const submitted = candidate !== undefined;
  const config = defaultFailureStrategy(req, candidate === undefined, plannerConfigured(deps.env));
  req = { ...req, config };
  if (candidate === undefined) {
    if (req.goal === undefined) {
      return {
        kind: 'error',
        code: 'invalid_request',
        message: 'Send either "plan" (a plan to run) or "goal" (a goal to plan), or "format" with "source"',
      };
    }
    // With an LLM the run plans itself (status `planning`); without one, or for a dry run, plan here
    // with what there is (the rule planner), so a goal nothing can plan is refused up front.
    if (config.mode === 'eager' && plannerConfigured(deps.env)) return createRun(req, undefined, null, deps);
    const outcome = await planGoal(
      {
        goal: req.goal,
        max_steps: config.max_steps,
        max_depth: config.max_depth,
        token_budget: config.token_budget ?? null,
        input: req.input,
      },
      plannerDepsFor(deps.env, deps),
    );
    if (!outcome.ok) {
      const code = outcome.error.code === 'planning_unavailable' ? 'planning_unavailable' : 'planning_failed';
      return { kind: 'error', code, message: outcome.error.message, details: outcome.error.details };
    }
    candidate = outcome.plan;
  }
  const validation = validatePlan(candidate, {
    tools: deps.tools,
    clock: deps.clock,
    ids: deps.ids,
    config: validationLimits(config, req.requireDependencies),
    refuseUnknownKeys: submitted,
    // Held to the run's input: a caller's plan here, a planned one again (its planner already was).
    runInput: { value: req.input ?? {} },
  });
  if (!validation.valid || !validation.plan) {
    const n = validation.errors.length;
    const first = validation.errors[0]?.message ?? 'invalid plan';
    return {
      kind: 'error',
      code: 'invalid_plan',
      message: `The plan has ${n} finding${n === 1 ? '' : 's'}: ${first}${n > 1 ? ' (all findings are in details.errors)' : ''}`,
      details: { errors: withSourceLines(validation.errors, prepared.lines) },
    };
  }
  if (config.mode === 'lazy') return { kind: 'dry_run', validation };

  return createRun(req, validation.plan, validation.estimates, deps, prepared.state);
}

/** Hands a run to a new PlanRun object (without a plan: the object plans the goal) and queues its first steps. */
async function createRun(
  req: StartRun,
  plan: Plan | undefined,
  estimates: Estimates | null,
  deps: { env: Env; ids: IdSource; origin: string },
  state?: Record<string, unknown>,
): Promise<StartResult> {
  if (plan && req.goal !== undefined && plan.goal === '') plan.goal = req.goal;
  const run_id = req.idempotency?.run_id ?? deps.ids.id('run');
  const created = await createConfirmed(deps.env.PLAN_RUN, {
    run_id,
    ...(req.idempotency ? { fingerprint: req.idempotency.fingerprint } : {}),
    goal: plan?.goal || req.goal || '',
    ...(plan ? { plan_json: JSON.stringify(plan) } : {}),
    config: req.config,
    input: req.input ?? {},
    ...(state ? { state } : {}),
    estimates,
    origin: deps.origin,
  });
  if (!created.ok) {
    const { code, message, details } = created.error;
    // deploy_in_progress: details.retry_after_s, the route's Retry-After.
    // decision_failed: the run's first decision threw; its message names the error (500).
    if (code === 'idempotency_key_reused' || code === 'deploy_in_progress' || code === 'decision_failed')
      return { kind: 'error', code, message, details };
    // A deleted run's id (its key sent again) waits a moment: details.retry_after_s says how long.
    return { kind: 'error', code: 'conflict', message, ...(code === 'run_deleted' ? { details } : {}) };
  }
  await sendSteps(deps.env.STEPS, created.value.outbox);
  return { kind: 'created', run_id, status: created.value.status, replayed: created.value.replayed === true };
}
