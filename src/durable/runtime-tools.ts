/**
 * Tools that need the runtime itself (SPEC §4): child runs (`agent.dispatch`, seed 001's
 * `plan.execute`), a person's answer (`human.input`), and seed 001's planning actions
 * (`plan.decompose`, `plan.replan`, `plan.status`) usable as steps inside plans.
 */
import { z } from 'zod';
import { ToolError } from '../errors';
import { CHILD_RUN_TIMEOUT_MS } from '../engine/child-run';
import { deferToChildRun } from '../executor/deferred';
import { agentDispatchTool } from '../executor/tools/agent-dispatch';
import { humanInput } from '../executor/tools/human-input';
import { defineTool, type AnyTool, type ToolContext, type ToolRegistry } from '../executor/registry';
import { planFromState, planGoal } from '../planner/pipeline';
import { plannerDepsFor } from '../planner/worker-deps';
import { startChildRun } from './child-runs';
import { applyExecutor } from './subtask-executor';
import {
  asPlan,
  asSteps,
  NO_PLAN,
  NO_PLAN_TO_REPLAN,
  remainingPlan,
  statusOf,
  withSubtasks,
  type TeaSubtask,
} from './subtask-plans';

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
