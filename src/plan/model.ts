/**
 * The plan model (SPEC §2, §4): zod schemas for plans, steps and run configuration, and the types
 * derived from them. Pure: no Cloudflare, network or clock access — ids and timestamps come in as
 * arguments so the same code runs in a Worker, a Durable Object, plain Node and replay.
 */
import { z } from 'zod';
import { MAX_RETRIES, MAX_WAIT_S, WAIT_MS_TOO_LONG } from './limits';

/** Step statuses (SPEC §4). */
export const StepStatus = {
  pending: 'pending',
  blocked: 'blocked',
  running: 'running',
  completed: 'completed',
  failed: 'failed',
  skipped: 'skipped',
  revised: 'revised',
} as const;
export type StepStatus = (typeof StepStatus)[keyof typeof StepStatus];

/** Run statuses (SPEC §4). */
export const RunStatus = {
  planning: 'planning',
  awaiting_approval: 'awaiting_approval',
  running: 'running',
  awaiting_input: 'awaiting_input',
  completed: 'completed',
  failed: 'failed',
  aborted: 'aborted',
  cancelled: 'cancelled',
} as const;
export type RunStatus = (typeof RunStatus)[keyof typeof RunStatus];

/** Run statuses after which nothing more happens unless the caller retries. */
export const TERMINAL_RUN_STATUSES: ReadonlySet<RunStatus> = new Set([
  RunStatus.completed,
  RunStatus.failed,
  RunStatus.aborted,
  RunStatus.cancelled,
]);

export const Strategy = {
  flat: 'flat',
  hierarchical: 'hierarchical',
  iterative: 'iterative',
  react: 'react',
  par: 'par',
  staged: 'staged',
  manual: 'manual',
} as const;
export type Strategy = (typeof Strategy)[keyof typeof Strategy];

export const ExecutionMode = {
  sequential: 'sequential',
  parallel: 'parallel',
  adaptive: 'adaptive',
} as const;
export type ExecutionMode = (typeof ExecutionMode)[keyof typeof ExecutionMode];

export const FailureStrategy = { abort: 'abort', skip: 'skip', retry: 'retry', replan: 'replan' } as const;
export type FailureStrategy = (typeof FailureStrategy)[keyof typeof FailureStrategy];

export const RevisionStrategy = {
  replan_remaining: 'replan_remaining',
  insert_recovery: 'insert_recovery',
  skip_and_continue: 'skip_and_continue',
  abort: 'abort',
  ask_user: 'ask_user',
} as const;
export type RevisionStrategy = (typeof RevisionStrategy)[keyof typeof RevisionStrategy];

/** The tool a step runs when it names none (SPEC §4: `llm.call` is the default executor). */
export const DEFAULT_ACTION = 'llm.call';

/** A run's id: `run_` and 1-64 letters or digits (the only names a run object is reached by). */
export const RUN_ID_PATTERN = /^run_[A-Za-z0-9]{1,64}$/;

/**
 * 1-64 letters, digits, `_`, `.` or `-` — and not `__proto__`: step ids are keys of the objects a run
 * is read through (`step_results`, `steps.<id>` in references), where that one would set the prototype.
 */
export const STEP_ID_PATTERN = /^(?!__proto__$)[A-Za-z0-9_.-]{1,64}$/;
export const StepIdSchema = z
  .string()
  .regex(
    STEP_ID_PATTERN,
    'step ids are 1-64 characters of letters, digits, "_", "." or "-" (and not "__proto__")',
  );

export const FallbackActionSchema = z.union([
  z.string().min(1),
  z.object({ action: z.string().min(1), parameters: z.record(z.string(), z.unknown()).optional() }),
]);
export type FallbackAction = z.infer<typeof FallbackActionSchema>;

/**
 * A step as callers and LLMs write it. `dependencies` stays optional here so validation can tell
 * "declared empty" from "omitted" (`missing_dependencies`); {@link normalizePlan} fills it in.
 */
export const PlanStepInputSchema = z.object({
  id: StepIdSchema,
  description: z.string().optional(),
  action: z.string().min(1).optional(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  dependencies: z.array(z.string()).nullish(),
  expected_output: z.string().nullish(),
  fallback_action: FallbackActionSchema.nullish(),
  estimated_tokens: z.number().int().nonnegative().nullish(),
  output_path: z.string().min(1).nullish(),
  when: z.string().min(1).nullish(),
  get subplan() {
    return PlanInputSchema.nullish();
  },
  timeout_ms: z
    .number()
    .int()
    .positive({ error: 'must be more than 0 milliseconds' })
    .max(MAX_WAIT_S * 1000, { error: WAIT_MS_TOO_LONG })
    .nullish(),
  retries: z.number().int().nonnegative().max(MAX_RETRIES).nullish(),
});
export type PlanStepInput = z.infer<typeof PlanStepInputSchema>;

export const PlanInputSchema = z.object({
  id: z.string().min(1).optional(),
  version: z.number().int().positive().optional(),
  goal: z.string().optional(),
  strategy: z.enum(Strategy).optional(),
  get steps() {
    return z.array(PlanStepInputSchema);
  },
  success_criteria: z.string().nullish(),
  created_at: z.string().optional(),
  estimated_total_tokens: z.number().int().nonnegative().nullish(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type PlanInput = z.infer<typeof PlanInputSchema>;

/** A normalised step: every default filled in. */
export type PlanStep = {
  id: string;
  description: string;
  action: string;
  parameters: Record<string, unknown>;
  dependencies: string[];
  expected_output?: string;
  fallback_action?: FallbackAction | null;
  estimated_tokens?: number | null;
  /** `state.x`, `state.ok || state.err`, or `state` (merge the result object's keys into state). */
  output_path?: string;
  when?: string;
  subplan?: Plan | null;
  timeout_ms?: number;
  retries?: number;
};

/** A normalised plan (SPEC §2). */
export type Plan = {
  id: string;
  version: number;
  goal: string;
  strategy: Strategy;
  steps: PlanStep[];
  success_criteria?: string;
  created_at: string;
  estimated_total_tokens?: number | null;
  metadata?: Record<string, unknown>;
};

/** Where ids and time come from; injected so the model stays pure and replayable. */
export type Clock = { now(): Date };
export type IdSource = {
  /** A new id with a prefix, e.g. `plan_<random>`. */
  id(prefix: string): string;
  /** A new UUID (event ids). */
  uuid(): string;
};

export type NormalizeOptions = { clock: Clock; ids: IdSource; defaultStrategy?: Strategy };

/**
 * Accepts seed-001 aliases (`subtasks` for `steps`, numeric `metadata.created_at`) and returns an
 * object ready for {@link PlanInputSchema}. Unknown shapes pass through for zod to report.
 */
export function applyPlanAliases(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  const out: Record<string, unknown> = { ...raw };
  if (out.steps === undefined && Array.isArray(out.subtasks)) out.steps = out.subtasks;
  delete out.subtasks;
  if (Array.isArray(out.steps)) out.steps = applyStepsAliases(out.steps as unknown[]);
  return out;
}

/** Copy-on-write: an array of ordinary steps is returned as it is (no copy per step on big plans). */
function applyStepsAliases(steps: unknown[]): unknown[] {
  let out: unknown[] | null = null;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    const next = applyStepAliases(step);
    if (next !== step) {
      out ??= steps.slice();
      out[i] = next;
    }
  }
  return out ?? steps;
}

function applyStepAliases(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  if (isOrdinary(raw)) return raw;
  // Seed-001 subtasks carry runtime fields (status, result) that are not part of a plan.
  const { status: _status, result: _result, ...rest } = raw;
  return rest;
}

/** A plain object without the runtime fields: copying it would change nothing. */
function isOrdinary(raw: Record<string, unknown>): boolean {
  const proto: unknown = Object.getPrototypeOf(raw);
  return (
    (proto === Object.prototype || proto === null) &&
    !Object.hasOwn(raw, 'status') &&
    !Object.hasOwn(raw, 'result')
  );
}

/** Fills every default of SPEC §2 into a parsed plan. */
export function normalizePlan(input: PlanInput, opts: NormalizeOptions): Plan {
  const plan: Plan = {
    id: input.id ?? opts.ids.id('plan'),
    version: input.version ?? 1,
    goal: input.goal ?? '',
    strategy: input.strategy ?? opts.defaultStrategy ?? Strategy.manual,
    steps: input.steps.map((s) => normalizeStep(s, opts)),
    created_at: input.created_at ?? opts.clock.now().toISOString(),
  };
  if (input.success_criteria != null) plan.success_criteria = input.success_criteria;
  if (input.estimated_total_tokens !== undefined) plan.estimated_total_tokens = input.estimated_total_tokens;
  if (input.metadata !== undefined) plan.metadata = input.metadata;
  return plan;
}

export function normalizeStep(input: PlanStepInput, opts: NormalizeOptions): PlanStep {
  const action = input.action ?? DEFAULT_ACTION;
  const step: PlanStep = {
    id: input.id,
    description: input.description ?? action,
    action,
    parameters: input.parameters ?? (input.action ? {} : defaultLlmParameters(input)),
    dependencies: input.dependencies ?? [],
  };
  if (input.expected_output != null) step.expected_output = input.expected_output;
  if (input.fallback_action !== undefined) step.fallback_action = input.fallback_action;
  if (input.estimated_tokens !== undefined) step.estimated_tokens = input.estimated_tokens;
  if (input.output_path != null) step.output_path = input.output_path;
  if (input.when != null) step.when = input.when;
  if (input.subplan != null)
    step.subplan = normalizePlan(input.subplan, { ...opts, defaultStrategy: undefined });
  if (input.timeout_ms != null) step.timeout_ms = input.timeout_ms;
  if (input.retries != null) step.retries = input.retries;
  return step;
}

/** A step with no action is run by `llm.call` with its description as the prompt (seed 001 subtasks). */
function defaultLlmParameters(input: PlanStepInput): Record<string, unknown> {
  return input.description ? { prompt: input.description } : {};
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
