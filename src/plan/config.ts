/**
 * Run configuration (SPEC §4, seed 000 §2.1.2/§2.3.2/§2.4.3) with seed-001 aliases accepted.
 * Every field has its default here and nowhere else.
 */
import { z } from 'zod';
import { parseCondition } from './conditions';
import { readableSchema } from './stage-schema';
import { MAX_RETRIES, MAX_WAIT_S, WAIT_S_TOO_LONG } from './limits';
import { ExecutionMode, FailureStrategy, RevisionStrategy, isRecord } from './model';
import { getOwn, setOwn } from './own-keys';

/** How long a plan waits for its approver when the run names no deadline: a day, then default_action. */
export const DEFAULT_APPROVAL_TIMEOUT_S = 24 * 3600;

export const ApprovalConfigSchema = z.object({
  webhook_url: z.url().optional(),
  timeout_s: z
    .number()
    .positive({ error: 'must be more than 0 seconds' })
    .max(MAX_WAIT_S, { error: WAIT_S_TOO_LONG })
    .default(DEFAULT_APPROVAL_TIMEOUT_S),
  default_action: z.enum(['approve', 'reject']).default('reject'),
  /**
   * A plan version the planner writes after the first (a revision, an iterative or ReAct turn):
   * `run` runs it, `ask` holds the run in `awaiting_approval` for it as for the first plan.
   */
  revisions: z.enum(['run', 'ask']).default('run'),
});
export type ApprovalConfig = z.infer<typeof ApprovalConfigSchema>;

/** `max_output_bytes` by default: 1 MiB. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
/**
 * The highest `max_output_bytes` (16 MiB): an output crosses one call between the queue consumer and
 * the run's object (those carry at most 32 MiB) and is held in the object's memory (128 MB).
 */
export const OUTPUT_LIMIT_CEILING = 16 * 1024 * 1024;

/**
 * How a goal run's planner is asked (the options of `POST /v1/plans`, SPEC §8): for the first plan and
 * every revision the run asks for.
 */
export const PlanningOptionsSchema = z.object({
  /** The first model to try (default PLANNER_MODEL); the fallbacks follow. */
  model: z.string().min(1).max(200).optional(),
  temperature: z.number().min(0).max(2).optional(),
  /** Prompt text replacing the template (placeholders such as {{ goal }}, {{ tools }}). */
  prompt_template: z.string().min(1).max(50_000).optional(),
  /** A template stored in KV under prompt-template:<id>. */
  prompt_template_id: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,128}$/)
    .optional(),
  /** Candidates per attempt, the verifier choosing (default 1). */
  n_best: z.number().int().min(1).max(5).optional(),
  /** The plan's exit criteria (seed 002), told to the planner and kept on the plan. */
  success_criteria: z.string().max(10_000).optional(),
  /** false: ask the model for plain text (no response_format), for servers without JSON modes. */
  structured_output: z.boolean().optional(),
});
export type PlanningOptions = z.infer<typeof PlanningOptionsSchema>;

/** A JSON Schema object zod can read (stage schemas are checked with it). */
const JsonSchemaField = z.record(z.string(), z.unknown()).superRefine((schema, ctx) => {
  const r = readableSchema(schema);
  if (!r.ok)
    ctx.addIssue({ code: 'custom', message: `not a JSON Schema this runtime can check: ${r.message}` });
});

/** Stage names are unique; transitions name a stage or `__end__`, and their conditions parse. */
function checkStages(
  stages: { name: string; transitions?: { when?: string; to: string }[] }[],
  ctx: z.RefinementCtx,
) {
  const names = new Set<string>();
  stages.forEach((s, i) => {
    if (names.has(s.name))
      ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `Duplicate stage "${s.name}"` });
    names.add(s.name);
  });
  stages.forEach((s, i) =>
    (s.transitions ?? []).forEach((t, j) => {
      if (t.to !== STAGE_END && !names.has(t.to))
        ctx.addIssue({
          code: 'custom',
          path: [i, 'transitions', j, 'to'],
          message: `No stage "${t.to}" (stages: ${[...names].join(', ')}, or ${STAGE_END})`,
        });
      const parsed = t.when === undefined ? null : parseCondition(t.when);
      if (parsed && !parsed.ok)
        ctx.addIssue({ code: 'custom', path: [i, 'transitions', j, 'when'], message: parsed.message });
    }),
  );
}

/** A transition's `to` that ends a staged run. */
export const STAGE_END = '__end__';

/** The `max_steps` of a run that sets none. */
export const DEFAULT_MAX_STEPS = 20;
/** The largest `max_steps` a run may set. */
export const MAX_PLAN_STEPS = 100_000;
/** The deepest sub-plan nesting (`max_depth`) a run may set — as `POST /v1/plans` allows. */
export const MAX_PLAN_DEPTH = 10;

export const RunConfigSchema = z.object({
  execution_mode: z.enum(ExecutionMode).default('sequential'),
  max_parallel: z.number().int().min(1).max(1000).default(3),
  /**
   * Where a parallel run's steps are carried out: `auto` — where each step's tool asks (a tool that
   * only waits or does microseconds of work, `placement: "object"`, runs in the run's own object with no
   * queue hop; every other tool on a queue consumer); `queue` — every step on a queue consumer;
   * `object` — every step in the run's object. A sequential run carries out every step in its object.
   */
  placement: z.enum(['auto', 'queue', 'object']).default('auto'),
  /** Seconds per attempt (at most MAX_WAIT_S, a year, as every wait). */
  step_timeout: z
    .number()
    .positive({ error: 'must be more than 0 seconds' })
    .max(MAX_WAIT_S, { error: WAIT_S_TOO_LONG })
    .default(60),
  /**
   * Seconds each model call made for planning may take (a first plan, a revision, a judge's verdict);
   * a call cut short is retried twice with backoff. Planning work lost with its instance, or still
   * going at three times this, is started again (three times at most).
   */
  planning_timeout_s: z
    .number()
    .positive({ error: 'must be more than 0 seconds' })
    .max(3600, { error: 'must be at most 3600 seconds (an hour)' })
    .default(60),
  retry_failed_steps: z.number().int().min(0).max(MAX_RETRIES).default(1),
  /** Seconds before the first retry; doubles each retry, up to MAX_WAIT_S. */
  retry_delay: z
    .number()
    .min(0, { error: 'must be at least 0 seconds' })
    .max(MAX_WAIT_S, { error: WAIT_S_TOO_LONG })
    .default(1),
  continue_on_failure: z.boolean().default(false),
  on_step_failure: z.enum(FailureStrategy).default('abort'),
  allow_revision: z.boolean().default(true),
  max_revisions: z.number().int().min(0).default(3),
  revision_strategy: z.enum(RevisionStrategy).default('replan_remaining'),
  revision_threshold: z.number().min(0).max(1).default(0.3),
  require_plan_approval: z.boolean().default(false),
  approval: ApprovalConfigSchema.optional(),
  token_budget: z.number().int().positive().nullish(),
  mode: z.enum(['eager', 'lazy']).default('eager'),
  /** At most MAX_PLAN_STEPS: past it a plan no longer fits a request body, nor a run object's memory. */
  max_steps: z.number().int().min(1).max(MAX_PLAN_STEPS).default(DEFAULT_MAX_STEPS),
  max_depth: z.number().int().min(0).max(MAX_PLAN_DEPTH).default(3),
  /**
   * How a goal is planned and run: `iterative` / `react` plan a turn at a time — when the steps of a
   * turn are done, the planner sees the plan and the state and follows, extends or replaces the plan,
   * until a turn adds nothing.
   */
  strategy: z.enum(['flat', 'hierarchical', 'iterative', 'react', 'par', 'staged']).optional(),
  /**
   * `react`: the most turns (tool calls) a run takes, its first plan's included (default 10). A run
   * whose model still wants to act past it fails with `turn_budget_exhausted`.
   */
  max_turns: z.number().int().min(1).max(100).optional(),
  /**
   * `staged` (seed 002 multi-stage policies): ordered stages, each planned with its own instructions,
   * restricted to its tool namespaces and token limit, its steps run before the next stage is planned.
   */
  stages: z
    .array(
      z.object({
        name: z.string().min(1).max(64),
        prompt: z.string().max(4000).optional(),
        tools: z.array(z.string().min(1)).optional(),
        max_tokens: z.number().int().positive().optional(),
        /** JSON Schema the stage's input (the previous stage's output; the run input first) must fit. */
        input_schema: JsonSchemaField.optional(),
        /** JSON Schema the stage's output (its last step's output) must fit before the next stage. */
        output_schema: JsonSchemaField.optional(),
        /**
         * Which stage comes next, first match wins: `when` is a condition over the run (as a step's
         * `when`: `steps.check.output.ok == false`), `to` a stage name — an earlier one rewinds — or
         * `__end__`. Without a match, the next stage in order.
         */
        transitions: z
          .array(z.object({ when: z.string().min(1).max(2000).optional(), to: z.string().min(1).max(64) }))
          .max(20)
          .optional(),
      }),
    )
    .min(1)
    .max(10)
    .superRefine(checkStages)
    .optional(),
  /** `staged`: how many times stages may rewind to an earlier one in a run (default 3). */
  max_stage_rewinds: z.number().int().min(0).max(100).optional(),
  require_dependencies: z.boolean().default(true),
  require_fallbacks: z.boolean().default(false),
  /** A goal run's planning options (also accepted beside `goal` in `POST /v1/runs`). */
  planning: PlanningOptionsSchema.optional(),
  /**
   * The largest step output accepted, in bytes of JSON: a larger one fails its attempt with
   * `output_too_large`, not retried (the call succeeded; another would repeat its effects), while the
   * fallback and the failure strategy apply.
   */
  max_output_bytes: z
    .number({ error: 'max_output_bytes must be a whole number of bytes' })
    .int({ error: 'max_output_bytes must be a whole number of bytes' })
    .min(1024, { error: 'max_output_bytes must be at least 1024 bytes' })
    .max(OUTPUT_LIMIT_CEILING, {
      error:
        `max_output_bytes can be at most ${OUTPUT_LIMIT_CEILING} (16 MiB); a tool with more to ` +
        'return should store it elsewhere and return a reference',
    })
    .default(DEFAULT_MAX_OUTPUT_BYTES),
});
export type RunConfig = z.infer<typeof RunConfigSchema>;
export type RunConfigInput = z.input<typeof RunConfigSchema>;

/** Seed-001 (`plan.execute`) and seed-000 constructor names mapped to ours. */
const CONFIG_ALIASES: Record<string, keyof RunConfig> = {
  max_concurrent: 'max_parallel',
  max_retries: 'retry_failed_steps',
  on_subtask_failure: 'on_step_failure',
  max_replans: 'max_revisions',
  max_subtasks: 'max_steps',
  max_decomposition_depth: 'max_depth',
};

/**
 * Rewrites aliases to canonical names. A canonical name given alongside its alias wins.
 * `parallel: true` (seed 001) means `execution_mode: "parallel"`.
 */
export function applyConfigAliases(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    // Own keys only: `constructor` or `toString` is an unknown key to name, not an alias of Object's.
    const canonical = getOwn(CONFIG_ALIASES, k) as keyof RunConfig | undefined;
    if (canonical) {
      if (raw[canonical] === undefined) out[canonical] = v;
    } else if (k === 'parallel') {
      if (raw.execution_mode === undefined && typeof v === 'boolean') {
        out.execution_mode = v ? 'parallel' : 'sequential';
      }
    } else {
      // setOwn: a `__proto__` key stays a key the strict schema refuses by name; assigned, it became
      // the copy's prototype and the schema read the config's fields through it.
      setOwn(out, k, v);
    }
  }
  return out;
}

/**
 * The limits plan validation checks, from a run's configuration. `requireDependencies` is for the
 * caller to decide: submitted and imported plans may leave dependencies to their references.
 */
export function validationLimits(c: RunConfig, requireDependencies: boolean) {
  return {
    max_steps: c.max_steps,
    max_depth: c.max_depth,
    require_fallbacks: c.require_fallbacks,
    require_dependencies: requireDependencies,
    ...(c.token_budget != null ? { token_budget: c.token_budget } : {}),
  };
}

export type StageConfig = NonNullable<RunConfig['stages']>[number];

/** Seed 002's example policy, used when a `staged` run names no stages. */
export const DEFAULT_STAGES: StageConfig[] = [
  {
    name: 'goal_framing',
    prompt: 'Frame the goal: add steps that gather what the goal needs to be understood.',
  },
  { name: 'decomposition', prompt: 'Decompose: add the steps that do the work, using what framing found.' },
  { name: 'tool_routing', prompt: 'Route: add steps that call the tools the remaining work needs.' },
  { name: 'synthesis', prompt: 'Synthesize: add the steps that combine the results into the answer.' },
];

/** The stages of a `staged` run. */
export function stagesOf(config: RunConfig): StageConfig[] {
  return config.stages ?? DEFAULT_STAGES;
}

/** Parses a run configuration with aliases and defaults; throws a ZodError on a bad field. */
export function parseRunConfig(raw: unknown): RunConfig {
  return RunConfigSchema.parse(applyConfigAliases(raw ?? {}));
}
