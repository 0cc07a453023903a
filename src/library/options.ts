/**
 * `PlanningPattern`'s constructor options (seed 000 §3.1, camelCase), validated when the pattern is
 * built — a bad option fails at construction with a message naming it, not halfway through a run —
 * and mapped onto the engine's {@link RunConfig}, the one place their defaults meet the engine's.
 */
import { EdgeplanError } from '../errors';
import { parseRunConfig, type RunConfig } from '../plan/config';
import {
  ExecutionMode,
  FailureStrategy,
  RevisionStrategy,
  isRecord,
  type ExecutionMode as Mode,
  type FailureStrategy as OnFailure,
  type RevisionStrategy as Revision,
} from '../plan/model';
import type { PlanningCallbacks } from './callbacks';

/** Seed 000's constructor parameters, plus the run settings of its tables (§2.3.2, §2.4.3). */
export type PlanningPatternOptions = {
  /** Most steps a plan may have (default 20). */
  maxSteps?: number;
  /** `sequential` (default), `parallel` or `adaptive`. */
  executionMode?: Mode;
  /** Concurrent steps in parallel and adaptive mode (default 3). */
  maxParallel?: number;
  /** Revise the plan when a step fails (default true). */
  allowRevision?: boolean;
  /** Revisions per run before it fails with `Max replans exceeded` (default 3). */
  maxRevisions?: number;
  /** Ask `onPlanApproved` before executing (default false). */
  requirePlanApproval?: boolean;
  /** Keep running independent steps after a failure (default false). */
  continueOnFailure?: boolean;
  /** Prompt text replacing the planner's template; `{{ goal }}`, `{{ tools }}`, … are filled in. */
  planningPrompt?: string | null;
  /** Let the planner break steps into sub-plans (default false). */
  hierarchical?: boolean;
  /** How deep sub-plans may nest (default 2). */
  maxDecompositionDepth?: number;
  /** Retries per failed step, with exponential backoff (default 1). */
  retryFailedSteps?: number;
  /** Seconds before the first retry, doubling each retry (default 1). */
  retryDelay?: number;
  /** Seconds per attempt (default 60). */
  stepTimeout?: number;
  /**
   * What a failed step does to the run. Default: `replan` when `allowRevision` is on and
   * `continueOnFailure` is off, else `abort` (which `continueOnFailure` turns into "carry on").
   */
  onStepFailure?: OnFailure;
  /** How a revision is made (default `replan_remaining`). */
  revisionStrategy?: Revision;
  /** Tokens the plan and its `llm.call` steps may spend; none by default. */
  tokenBudget?: number | null;
  /** Every step must list its dependencies, possibly empty (default false: references imply them). */
  requireDependencies?: boolean;
  /** Every step must name a `fallback_action` (default false). */
  requireFallbacks?: boolean;
  /** Failure rate (0–1) over which a revision is asked for (default 0.3). */
  revisionThreshold?: number;
  /** The model to plan with, before the agent's own (default: the agent's `llm.model`). */
  planningModel?: string | null;
  /** Ask the model for structured JSON output (default true); false for servers without JSON modes. */
  structuredOutput?: boolean;
  /** Callbacks for every run of this pattern; an agent's own callbacks take precedence. */
  callbacks?: Partial<PlanningCallbacks>;
};

/** The options with every default filled in. */
export type ResolvedPlanningOptions = Required<
  Omit<PlanningPatternOptions, 'callbacks' | 'planningPrompt' | 'planningModel'>
> & {
  planningPrompt: string | null;
  planningModel: string | null;
  tokenBudget: number | null;
};

const DEFAULTS = {
  maxSteps: 20,
  executionMode: 'sequential',
  maxParallel: 3,
  allowRevision: true,
  maxRevisions: 3,
  requirePlanApproval: false,
  continueOnFailure: false,
  planningPrompt: null,
  hierarchical: false,
  maxDecompositionDepth: 2,
  retryFailedSteps: 1,
  retryDelay: 1,
  stepTimeout: 60,
  revisionStrategy: 'replan_remaining',
  tokenBudget: null,
  requireDependencies: false,
  requireFallbacks: false,
  revisionThreshold: 0.3,
  planningModel: null,
  structuredOutput: true,
} as const;

const KNOWN = new Set<string>([...Object.keys(DEFAULTS), 'onStepFailure', 'callbacks']);

/**
 * Fills in defaults and checks every option, throwing an `invalid_options` EdgeplanError that names
 * the option: `"maxParallel must be >= 1 (got 0)"`.
 * @example resolvePlanningOptions({ executionMode: 'parallel', maxParallel: 5 }).maxParallel; // 5
 */
export function resolvePlanningOptions(options: PlanningPatternOptions = {}): ResolvedPlanningOptions {
  if (!isRecord(options)) invalid(`options must be an object (got ${describe(options)})`);
  for (const key of Object.keys(options)) {
    if (KNOWN.has(key)) continue;
    const camel = key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
    invalid(`Unknown option ${key}${KNOWN.has(camel) ? `; did you mean ${camel}?` : ''}`);
  }
  const o = { ...DEFAULTS, ...dropUndefined(options) };
  const allowRevision = bool('allowRevision', o.allowRevision);
  const continueOnFailure = bool('continueOnFailure', o.continueOnFailure);
  const onStepFailure =
    options.onStepFailure === undefined
      ? allowRevision && !continueOnFailure
        ? 'replan'
        : 'abort'
      : oneOf('onStepFailure', options.onStepFailure, FailureStrategy);
  const planningPrompt = o.planningPrompt;
  if (planningPrompt !== null && (typeof planningPrompt !== 'string' || planningPrompt.trim() === '')) {
    invalid(`planningPrompt must be a non-empty string or null (got ${describe(planningPrompt)})`);
  }
  const tokenBudget = o.tokenBudget;
  if (tokenBudget !== null) int('tokenBudget', tokenBudget, 1);
  const planningModel = o.planningModel;
  if (planningModel !== null && (typeof planningModel !== 'string' || planningModel.trim() === '')) {
    invalid(`planningModel must be a model name or null (got ${describe(planningModel)})`);
  }
  const revisionThreshold = num('revisionThreshold', o.revisionThreshold, 0);
  if (revisionThreshold > 1) invalid(`revisionThreshold must be <= 1 (got ${revisionThreshold})`);
  return {
    maxSteps: int('maxSteps', o.maxSteps, 1),
    executionMode: oneOf('executionMode', o.executionMode, ExecutionMode),
    maxParallel: int('maxParallel', o.maxParallel, 1, 1000),
    allowRevision,
    maxRevisions: int('maxRevisions', o.maxRevisions, 0),
    requirePlanApproval: bool('requirePlanApproval', o.requirePlanApproval),
    continueOnFailure,
    planningPrompt,
    hierarchical: bool('hierarchical', o.hierarchical),
    maxDecompositionDepth: int('maxDecompositionDepth', o.maxDecompositionDepth, 0),
    retryFailedSteps: int('retryFailedSteps', o.retryFailedSteps, 0, 100),
    retryDelay: num('retryDelay', o.retryDelay, 0),
    stepTimeout: num('stepTimeout', o.stepTimeout, 0, true),
    onStepFailure,
    revisionStrategy: oneOf('revisionStrategy', o.revisionStrategy, RevisionStrategy),
    tokenBudget,
    requireDependencies: bool('requireDependencies', o.requireDependencies),
    requireFallbacks: bool('requireFallbacks', o.requireFallbacks),
    revisionThreshold,
    planningModel,
    structuredOutput: bool('structuredOutput', o.structuredOutput),
  };
}

/**
 * The engine configuration a pattern's runs use.
 * @example runConfigFor(resolvePlanningOptions({ maxParallel: 5 })).max_parallel; // 5
 */
export function runConfigFor(o: ResolvedPlanningOptions): RunConfig {
  return parseRunConfig({
    execution_mode: o.executionMode,
    max_parallel: o.maxParallel,
    step_timeout: o.stepTimeout,
    retry_failed_steps: o.retryFailedSteps,
    retry_delay: o.retryDelay,
    continue_on_failure: o.continueOnFailure,
    on_step_failure: o.onStepFailure,
    allow_revision: o.allowRevision,
    max_revisions: o.maxRevisions,
    revision_strategy: o.revisionStrategy,
    require_plan_approval: o.requirePlanApproval,
    token_budget: o.tokenBudget,
    max_steps: o.maxSteps,
    max_depth: o.maxDecompositionDepth,
    // By default plans given to executePlan, like plans submitted over HTTP, may leave dependencies
    // to their references.
    require_dependencies: o.requireDependencies,
    require_fallbacks: o.requireFallbacks,
    revision_threshold: o.revisionThreshold,
    planning: {
      ...(o.planningModel !== null ? { model: o.planningModel } : {}),
      ...(o.structuredOutput ? {} : { structured_output: false }),
    },
  });
}

function int(name: string, v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isInteger(v))
    invalid(`${name} must be an integer (got ${describe(v)})`);
  if (v < min) invalid(`${name} must be >= ${min} (got ${v})`);
  if (v > max) invalid(`${name} must be <= ${max} (got ${v})`);
  return v;
}

function num(name: string, v: unknown, min: number, exclusive = false): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) invalid(`${name} must be a number (got ${describe(v)})`);
  if (exclusive ? v <= min : v < min) invalid(`${name} must be ${exclusive ? '>' : '>='} ${min} (got ${v})`);
  return v;
}

function bool(name: string, v: unknown): boolean {
  if (typeof v !== 'boolean') invalid(`${name} must be true or false (got ${describe(v)})`);
  return v;
}

function oneOf<T extends string>(name: string, v: unknown, values: Record<string, T>): T {
  const allowed = Object.values(values);
  if (typeof v !== 'string' || !(allowed as string[]).includes(v)) {
    invalid(`${name} must be one of ${allowed.join(', ')} (got ${describe(v)})`);
  }
  return v as T;
}

function invalid(message: string): never {
  throw new EdgeplanError('invalid_options', message);
}

function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' ? String(v) : typeof v;
}

function dropUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
