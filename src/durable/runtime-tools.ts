/**
 * Tools that need the runtime itself (SPEC §4): child runs (`agent.dispatch`, seed 001's
 * `plan.execute`), a person's answer (`human.input`), and seed 001's planning actions
 * (`plan.decompose`, `plan.replan`, `plan.status`) usable as steps inside plans.
 */
import { z } from 'zod';
import { ToolError } from '../errors';
import { CHILD_RUN_TIMEOUT_MS } from '../engine/child-run';
import { deferToChildRun, deferToPerson } from '../executor/deferred';
import { agentDispatchTool } from '../executor/tools/agent-dispatch';
import { defineTool, type AnyTool, type ToolContext, type ToolRegistry } from '../executor/registry';
import { isRecord, type Plan } from '../plan/model';
import { planFromState, planGoal } from '../planner/pipeline';
import { settingsEnvNames } from '../plan/tea-settings';
import { plannerDepsFor } from '../planner/worker-deps';
import { startChildRun } from './child-runs';

const HOUR = 3600_000;

/** The runtime tools, bound to a registry that includes them (for planning and child plans). */
export function runtimeTools(registry: () => ToolRegistry): AnyTool[] {
  const env = (ctx: ToolContext) => ctx.env as unknown as Env;
  const parent = (ctx: ToolContext) => ({ run_id: ctx.runId, step_id: ctx.stepId, attempt: ctx.attempt });
  const deps = (ctx: ToolContext) =>
    plannerDepsFor(env(ctx), {
      tools: registry(),
      clock: { now: () => new Date() },
      ids: { id: (p) => `${p}_${crypto.randomUUID().replaceAll('-', '')}`, uuid: () => crypto.randomUUID() },
    });

  // The input, version and time limit are shared with the in-process runner; the child is an object.
  const agentDispatch = agentDispatchTool(async (input, ctx) =>
    deferToChildRun(await startChildRun(env(ctx), registry(), parent(ctx), input, ctx.settingsEnv)),
  );

  const planExecute = defineTool({
    name: 'plan.execute',
    description:
      'Seed 001 plan.execute: runs a plan (e.g. from plan.decompose) as a child run respecting dependencies.',
    version: '1',
    // The child workflow's settings keep `${VAR}` as written: its own tools get the values.
    passesSettingsOn: true,
    input: z.object({
      plan: z.unknown(),
      parallel: z.boolean().optional(),
      max_concurrent: z.number().int().min(1).optional(),
      on_subtask_failure: z.enum(['abort', 'skip', 'retry', 'replan']).optional(),
      max_retries: z.number().int().min(0).optional(),
      retry_delay: z.number().min(0).optional(),
      max_replans: z.number().int().min(0).optional(),
      subtask_executor: z
        .object({ action: z.string().min(1), with: z.record(z.string(), z.unknown()).optional() })
        .optional(),
      subtask_results: z.record(z.string(), z.unknown()).nullish(),
      /** A TEA workflow's state, variables and settings, for the executor's templates (the importer passes them). */
      workflow: z
        .object({
          state: z.record(z.string(), z.unknown()).nullish(),
          variables: z.record(z.string(), z.unknown()).nullish(),
          settings: z.record(z.string(), z.unknown()).nullish(),
        })
        .optional(),
    }),
    idempotent: true,
    deterministic: false,
    timeout_ms: CHILD_RUN_TIMEOUT_MS,
    run: async (p, ctx) => {
      const { plan: given, subtask_executor, subtask_results, workflow, ...config } = p;
      const full = asPlan(given, NO_PLAN);
      const plan = remainingPlan(full, subtask_results ?? {});
      const preserved = (full.steps as TeaSubtask[])
        .filter((s) => !plan.steps.some((r) => r.id === s.id))
        .map((s) => ({ ...s, status: 'completed', result: s.result ?? subtask_results?.[s.id] ?? null }));
      const withExecutor = subtask_executor
        ? applyExecutor(plan, subtask_executor, workflow, preserved)
        : plan;
      // TEA's on_subtask_failure: retry tries a subtask again up to max_retries (default 2) times.
      if (config.on_subtask_failure === 'retry') config.max_retries ??= 2;
      return deferToChildRun(
        await startChildRun(
          env(ctx),
          registry(),
          parent(ctx),
          {
            plan: withExecutor,
            config: { max_steps: 1000, ...config },
            input: workflow?.state ?? {},
          },
          ctx.settingsEnv,
        ),
      );
    },
  });

  const humanInput = defineTool({
    name: 'human.input',
    description:
      'Pauses the run (awaiting_input) until someone answers with POST /v1/runs/:id/input; the answer is the output.',
    version: '1',
    input: z.object({ prompt: z.string().min(1), schema: z.unknown().optional() }),
    idempotent: true,
    deterministic: false,
    timeout_ms: 24 * HOUR,
    run: ({ prompt }) => Promise.resolve(deferToPerson(prompt)),
  });

  const planDecompose = defineTool({
    name: 'plan.decompose',
    description: 'Seed 001 plan.decompose: breaks a goal into a validated plan of subtasks.',
    version: '1',
    input: z.object({
      goal: z.string().min(1),
      strategy: z.enum(['flat', 'hierarchical', 'iterative', 'react', 'par', 'staged']).optional(),
      max_depth: z.number().int().min(0).optional(),
      max_subtasks: z.number().int().min(1).optional(),
      model: z.string().optional(),
      prompt_template: z.string().optional(),
      temperature: z.number().min(0).max(2).optional(),
      /** TEA's examples group the planner's options: `planner: {model, strategy, max_depth, prompt_template}`. */
      planner: z
        .object({
          model: z.string().optional(),
          strategy: z.enum(['flat', 'hierarchical', 'iterative', 'react', 'par', 'staged']).optional(),
          max_depth: z.number().int().min(0).optional(),
          max_subtasks: z.number().int().min(1).optional(),
          prompt_template: z.string().optional(),
          temperature: z.number().min(0).max(2).optional(),
        })
        .optional(),
    }),
    idempotent: true,
    deterministic: false,
    estimated_tokens: 1500,
    // The goal is in the plan this returns and in the prompt the planning provenance stores: `${VAR}`
    // stays as written there (the planner's model gets its value).
    passesSettingsOn: ['goal'],
    run: async ({ planner, ...given }, ctx) => {
      // An option given beside `planner:` wins over the same option inside it.
      const p = { ...planner, ...given };
      const o = await planGoal(p, deps(ctx));
      if (!o.ok) throw new ToolError(o.error.code, o.error.message, { retryable: o.error.retryable });
      ctx.reportTokens?.({ prompt: o.tokens.prompt, completion: o.tokens.completion });
      return {
        plan: withSubtasks(o.plan),
        planning_trace: o.planning_trace,
        success: true,
        plan_id: o.plan.id,
        subtask_count: o.plan.steps.length,
      };
    },
  });

  const planReplan = defineTool({
    name: 'plan.replan',
    description: 'Seed 001 plan.replan: re-plans from the current state, preserving completed subtasks.',
    version: '1',
    input: z.object({
      plan: z.unknown(),
      subtask_results: z.record(z.string(), z.unknown()).nullish(),
      failed_subtask: z.string().nullish(),
      failure_reason: z.string().nullish(),
      model: z.string().optional(),
      temperature: z.number().min(0).max(2).optional(),
    }),
    idempotent: true,
    deterministic: false,
    estimated_tokens: 1500,
    // The plan and results are in the plan this returns and in the stored prompt: kept as written.
    passesSettingsOn: ['plan', 'subtask_results', 'failed_subtask', 'failure_reason'],
    run: async (p, ctx) => {
      const plan = asSteps(asPlan(p.plan, NO_PLAN_TO_REPLAN));
      const results: Record<string, unknown> = { ...(p.subtask_results ?? {}) };
      // Subtasks the plan itself marks completed (TEA keeps status and result on each) count as done.
      for (const s of plan.steps as TeaSubtask[])
        if (s.status === 'completed' && !(s.id in results)) results[s.id] = s.result ?? null;
      const statuses = Object.fromEntries(
        plan.steps.map((s) => [
          s.id,
          s.id in results
            ? ('completed' as const)
            : s.id === p.failed_subtask
              ? ('failed' as const)
              : ('pending' as const),
        ]),
      );
      const o = await planFromState(
        {
          goal: plan.goal,
          tools: registry().describe(),
          limits: { max_steps: 50, max_depth: 3, token_budget: null },
          plan,
          step_statuses: statuses,
          step_results: results,
          ...(p.failed_subtask
            ? { failure: { step_id: p.failed_subtask, reason: p.failure_reason ?? 'failed' } }
            : {}),
        },
        {
          ...(p.model ? { model: p.model } : {}),
          ...(p.temperature !== undefined ? { temperature: p.temperature } : {}),
        },
        deps(ctx),
      );
      if (!o.ok) throw new ToolError(o.error.code, o.error.message, { retryable: o.error.retryable });
      ctx.reportTokens?.({ prompt: o.tokens.prompt, completion: o.tokens.completion });
      const preserved = o.plan.steps.filter((s) => s.id in results).length;
      const replanCount =
        Number((plan.metadata as { replan_count?: unknown } | undefined)?.replan_count ?? 0) || 0;
      const next = withSubtasks(
        { ...o.plan, metadata: { ...plan.metadata, ...o.plan.metadata, replan_count: replanCount + 1 } },
        results,
      );
      return {
        plan: next,
        preserved_subtasks: preserved,
        new_subtasks: o.plan.steps.length - preserved,
        planning_trace: o.planning_trace,
        success: true,
      };
    },
  });

  const planStatus = defineTool({
    name: 'plan.status',
    description:
      'Seed 001 plan.status: counts, progress and optionally the subtasks of a plan and its results.',
    version: '1',
    input: z.object({
      plan: z.unknown(),
      subtask_results: z.record(z.string(), z.unknown()).nullish(),
      include_completed: z.boolean().optional(),
      include_details: z.boolean().optional(),
    }),
    idempotent: true,
    deterministic: true,
    // Its output lists the plan's subtasks: kept as written.
    passesSettingsOn: true,
    run: (p) =>
      Promise.resolve(
        statusOf(p.plan, p.subtask_results ?? {}, p.include_details ?? false, p.include_completed ?? true),
      ),
  });

  return [agentDispatch, planExecute, humanInput, planDecompose, planReplan, planStatus];
}

/** A subtask as seed 001 and TEA show it: a step with its status and result. */
type TeaSubtask = Plan['steps'][number] & { status?: string; result?: unknown };

/** Seed 001 shows a plan's steps as `subtasks` with a status (and result); both names are given. */
function withSubtasks(plan: Plan, results: Record<string, unknown> = {}): Plan & { subtasks: unknown[] } {
  return {
    ...plan,
    subtasks: plan.steps.map((s) =>
      s.id in results ? { ...s, status: 'completed', result: results[s.id] } : { ...s, status: 'pending' },
    ),
  };
}

/** TEA's error strings (planning_actions.py). */
const NO_PLAN = 'No plan provided. Use plan.decompose first or provide plan parameter.';
const NO_PLAN_TO_REPLAN = 'No plan to replan';

/**
 * A plan given to a planning action: `{steps}` or `{subtasks}` (each may carry `status` and
 * `result`), or the whole result of plan.decompose (`output: plan` puts `{plan, …}` in state.plan).
 */
function asPlan(given: unknown, missing: string = NO_PLAN): Plan {
  let raw = given;
  if (isRecord(raw) && raw.steps === undefined && raw.subtasks === undefined && isRecord(raw.plan))
    raw = raw.plan;
  if (!isRecord(raw) || Object.keys(raw).length === 0)
    throw new ToolError('no_plan', missing, { retryable: false });
  // Seed 001's subtasks carry status and result: they win over a stale `steps` copy.
  const steps = Array.isArray(raw.subtasks) ? raw.subtasks : raw.steps;
  if (!Array.isArray(steps))
    throw new ToolError('invalid_plan', 'Invalid plan structure: it has no steps or subtasks', {
      retryable: false,
    });
  return {
    ...(raw as Plan),
    goal: typeof raw.goal === 'string' ? raw.goal : '',
    steps: steps as Plan['steps'],
  };
}

/**
 * TEA's subtasks name no action (its executor runs them): as steps they are `llm.call` with their
 * description as the prompt, the default a plan gives a step without an action.
 */
function asSteps(plan: Plan): Plan {
  const steps = plan.steps.map((s) => {
    const p: Record<string, unknown> = isRecord(s.parameters) ? s.parameters : {};
    const bare = !s.action || (s.action === 'llm.call' && p.prompt === undefined && p.messages === undefined);
    return bare ? { ...s, action: 'llm.call', parameters: { prompt: s.description || s.id } } : s;
  });
  return { ...plan, steps };
}

/**
 * The subtasks still to run: completed ones (by their `status`, or a result in `subtask_results`) are
 * left out and dependencies on them dropped, as TEA's plan.execute skips them.
 */
function remainingPlan(plan: Plan, results: Record<string, unknown>): Plan {
  const done = new Set(
    (plan.steps as TeaSubtask[]).filter((s) => s.status === 'completed' || s.id in results).map((s) => s.id),
  );
  const steps = (plan.steps as TeaSubtask[])
    .filter((s) => !done.has(s.id))
    .map(({ status: _status, result: _result, ...s }) => ({
      ...s,
      given_dependencies: s.dependencies ?? [],
      dependencies: (s.dependencies ?? []).filter((d) => !done.has(d)),
    }));
  return { ...plan, steps: steps };
}

const DEFAULT_SUBTASK_MESSAGES = [
  {
    role: 'system',
    content:
      'You are executing a subtask as part of a larger plan. Complete the subtask and return a useful result.',
  },
  {
    role: 'user',
    content:
      "Subtask: {{ subtask.description }}{% for id, r in subtask.results.items() %}\nResult from '{{ id }}': {{ (r | string)[:500] }}{% endfor %}",
  },
];

/**
 * Steps that name no action run with the subtask executor. With a TEA workflow's executor, its `with:`
 * is kept as written and rendered per subtask in the child run (`subtask.*`, `state.subtask_results`);
 * otherwise the description is the prompt.
 */
function applyExecutor(
  plan: Plan,
  exec: { action: string; with?: Record<string, unknown> | undefined },
  workflow:
    { variables?: Record<string, unknown> | null; settings?: Record<string, unknown> | null } | undefined,
  preserved: Record<string, unknown>[],
): unknown {
  const { subtasks: _subtasks, ...rest } = plan as Plan & { subtasks?: unknown };
  if (workflow === undefined) {
    return {
      ...rest,
      steps: plan.steps.map((s) =>
        s.action === undefined
          ? { ...s, action: exec.action, parameters: { ...exec.with, prompt: String(s.description ?? s.id) } }
          : s,
      ),
    };
  }
  const params: Record<string, Record<string, unknown>> = {};
  const withParams = exec.with ?? {};
  // TEA's default llm.call executor messages (planning_actions.py _execute_subtask).
  const executorParams =
    exec.action === 'llm.call' && withParams.messages === undefined && withParams.prompt === undefined
      ? { ...withParams, messages: DEFAULT_SUBTASK_MESSAGES }
      : withParams;
  const steps = plan.steps.map(
    ({ given_dependencies: _given, ...s }: Plan['steps'][number] & { given_dependencies?: string[] }) => {
      if (s.action !== undefined && s.action !== exec.action) return s;
      params[s.id] = executorParams;
      return { ...s, action: exec.action, parameters: {} };
    },
  );
  const tea = {
    subtasks: true,
    params,
    variables: workflow.variables ?? {},
    settings: workflow.settings ?? {},
    env_names: settingsEnvNames(workflow.settings ?? {}),
    preserved,
    dependencies: Object.fromEntries(
      plan.steps.map((s) => [
        s.id,
        (s as TeaSubtask & { given_dependencies?: string[] }).given_dependencies ?? s.dependencies,
      ]),
    ),
  };
  // TEA's strategy shapes the decomposition only; plan.execute runs the subtasks as a DAG.
  return {
    ...rest,
    strategy: 'flat',
    steps,
    metadata: { ...rest.metadata, tea, decomposed_as: rest.strategy },
  };
}

function statusOf(
  raw: unknown,
  results: Record<string, unknown>,
  details: boolean,
  includeCompleted: boolean,
) {
  const plan = asPlan(raw);
  const counts = { total: 0, pending: 0, in_progress: 0, completed: 0, failed: 0, skipped: 0 };
  const subtasks: unknown[] = [];
  for (const s of plan.steps as TeaSubtask[]) {
    const status = s.id in results ? 'completed' : (s.status ?? 'pending');
    counts.total += 1;
    if (status in counts) counts[status as keyof typeof counts] += 1;
    if (details && (includeCompleted || status !== 'completed'))
      subtasks.push({ ...s, status, result: results[s.id] ?? s.result ?? null });
  }
  const out: Record<string, unknown> = {
    status: counts,
    // TEA's progress: completed and skipped subtasks over all (an empty plan is done).
    progress: counts.total ? (counts.completed + counts.skipped) / counts.total : 1,
    plan_id: plan.id ?? null,
    goal: plan.goal,
    success: true,
  };
  if (details) out.subtasks = subtasks;
  return out;
}
