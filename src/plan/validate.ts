/**
 * Plan validation (SPEC §2): every finding at once, each with a stable code. Pure and linear: one
 * pass over the steps, a graph built with maps and a trie, an iterative cycle search, and schema
 * lookups cached per tool and path. The rules themselves are in `plan-checks.ts`.
 */
import type { z } from 'zod';
import { RunConfigSchema } from './config';
import type { RunConfig } from './config';
import { estimatePlan } from './estimates';
import type { Estimates } from './estimates';
import type { Finding, Limits, RunInput } from './findings';
import { unknownKeysMessage } from './key-suggestions';
import { PlanInputSchema, PlanStepInputSchema, applyPlanAliases, isRecord, normalizePlan } from './model';
import type { Clock, IdSource, Plan, PlanInput } from './model';
import { PlanChecker } from './plan-checks';
import type { UncheckedParameters } from './unchecked-schema';
import { isPlainPlanInput } from './plan-shape';
import {
  formatOutputPath,
  formatPath,
  normalizeLegacyReferences,
  normalizeLegacyString,
  parseOutputPath,
} from './references';
import type { ToolRegistry } from '../executor/registry';
import { issueText } from '../issue-text';

export { FindingCode } from './findings';
export type { Finding } from './findings';

export type ValidateOptions = {
  tools: ToolRegistry;
  /** Limits; missing fields take RunConfig defaults. `require_dependencies` is off unless given. */
  config?: Partial<
    Pick<RunConfig, 'max_steps' | 'max_depth' | 'token_budget' | 'require_dependencies' | 'require_fallbacks'>
  >;
  clock: Clock;
  ids: IdSource;
  /** Observed mean latency per tool name (ms), for estimates. */
  latencyHistory?: Record<string, number>;
  /**
   * Refuse keys a plan, step or fallback does not know (a `schema` finding naming the likely key).
   * For plans a caller wrote, where a misspelt `dependecies` would otherwise run the step without
   * waiting; a model's plan keeps extra keys dropped rather than failing whole.
   */
  refuseUnknownKeys?: boolean;
  /**
   * The run's input, when the plan is validated for a run that has it (a caller's plan, a model's
   * plan or revision, an approver's edit): a whole `{{ input.… }}` reference whose value a parameter
   * cannot take is a `bad_reference` before anything runs, rather than the step's failure after an
   * approval; and the value a whole reference gives a parameter is held to its tool's schema.
   * `kindsOnly`: the value stands in for the run's by its kinds alone (the approval link's page has
   * no values), so only what references find and its kind are checked. Absent (a plan on its own):
   * not checked.
   */
  runInput?: RunInput;
};

export type ValidationResult = {
  valid: boolean;
  errors: Finding[];
  /** The normalised plan when the input was well-formed (even if other findings exist), else null. */
  plan: Plan | null;
  /** Null when the plan is not well-formed or its graph has a cycle (no critical path exists). */
  estimates: Estimates | null;
  /**
   * Steps whose parameters could not be checked, because their tool's input schema could not be read
   * (unchecked-schema.ts); present only when there are some. Not findings: such a plan may be valid.
   */
  unchecked?: UncheckedParameters[];
};

const DEFAULTS = RunConfigSchema.parse({});

/**
 * Validates a submitted or generated plan: seed-001 aliases and seed-004 `†` references are
 * accepted, the shape is checked against {@link PlanInputSchema}, defaults are filled in, and then
 * every rule of SPEC §2 runs over the whole plan, sub-plans included.
 * @example
 * const r = validatePlan({ goal: 'g', steps: [{ id: 'a', action: 'demo.echo' }] }, { tools, clock, ids });
 * if (!r.valid) console.log(r.errors.map((e) => `${e.code}: ${e.message}`));
 */
export function validatePlan(raw: unknown, opts: ValidateOptions): ValidationResult {
  try {
    return validate(raw, opts);
  } catch (err) {
    // Parameters nested thousands deep exhaust the stack of any recursive walk (zod's included).
    // That is a bad plan, not a server error.
    if (err instanceof RangeError) {
      return {
        valid: false,
        errors: [{ code: 'schema', message: `plan: nested too deeply to validate (${err.message})` }],
        plan: null,
        estimates: null,
      };
    }
    throw err;
  }
}

function validate(raw: unknown, opts: ValidateOptions): ValidationResult {
  const c = opts.config ?? {};
  const limits: Limits = {
    max_steps: c.max_steps ?? DEFAULTS.max_steps,
    max_depth: c.max_depth ?? DEFAULTS.max_depth,
    token_budget: c.token_budget ?? null,
    require_dependencies: c.require_dependencies === true,
    require_fallbacks: c.require_fallbacks === true,
  };
  const findings: Finding[] = [];
  const ctx: Preparation = { limits, findings, refuseUnknownKeys: opts.refuseUnknownKeys === true };
  const prepared = preparePlan(raw, 0, '', [], ctx);

  let input: PlanInput;
  if (isPlainPlanInput(prepared)) {
    input = prepared;
  } else {
    const parsed = PlanInputSchema.safeParse(prepared);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) findings.push(schemaFinding(issue, prepared));
      return { valid: false, errors: findings, plan: null, estimates: null };
    }
    input = parsed.data;
  }

  const plan = normalizePlan(input, { clock: opts.clock, ids: opts.ids });
  const checker = new PlanChecker(opts.tools, limits, findings, opts.runInput);
  const { graph, cyclic } = checker.check(plan, input, 0, '');
  const estimates = estimatePlan(plan, graph, opts.tools, opts.latencyHistory);
  if (limits.token_budget !== null && estimates.estimated_tokens > limits.token_budget) {
    findings.push({
      code: 'token_budget',
      message: `Estimated tokens ${estimates.estimated_tokens} exceed the token budget of ${limits.token_budget}`,
    });
  }
  return {
    valid: findings.length === 0,
    errors: findings,
    plan,
    estimates: cyclic ? null : estimates,
    ...(checker.unchecked.length > 0 ? { unchecked: checker.unchecked } : {}),
  };
}

/**
 * Applies aliases and rewrites legacy references before zod sees the plan (copy-on-write: an
 * ordinary plan is not copied). Sub-plans deeper than `max_depth` are reported here; below the
 * first too-deep level they are dropped so a hostile nesting cannot run the parser out of stack.
 */
function preparePlan(raw: unknown, depth: number, prefix: string, path: Path, ctx: Preparation): unknown {
  const plan = applyPlanAliases(raw);
  if (ctx.refuseUnknownKeys) checkKeys(plan, PLAN_KEYS, path, prefix ? prefix.slice(0, -1) : undefined, ctx);
  if (!isRecord(plan) || !Array.isArray(plan.steps)) return plan;
  const steps = plan.steps as unknown[];
  let out: unknown[] | null = null;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    const next = prepareStep(step, depth, prefix, [...path, 'steps', i], ctx);
    if (next !== step) {
      out ??= steps.slice();
      out[i] = next;
    }
  }
  return out === null ? plan : { ...plan, steps: out };
}

function prepareStep(step: unknown, depth: number, prefix: string, path: Path, ctx: Preparation): unknown {
  if (!isRecord(step)) return step;
  const { limits, findings } = ctx;
  if (ctx.refuseUnknownKeys) {
    const stepId = prefix + (typeof step.id === 'string' ? step.id : `#${String(path.at(-1))}`);
    checkKeys(step, STEP_KEYS, path, stepId, ctx);
    if (isRecord(step.fallback_action)) {
      checkKeys(step.fallback_action, FALLBACK_KEYS, [...path, 'fallback_action'], stepId, ctx);
    }
  }
  let out: Record<string, unknown> | null = null;
  if (step.parameters !== undefined) {
    const params = normalizeLegacyReferences(step.parameters);
    if (params !== step.parameters) (out ??= { ...step }).parameters = params;
  }
  if (typeof step.when === 'string') {
    const when = normalizeLegacyString(step.when);
    if (when !== step.when) (out ??= { ...step }).when = when;
  }
  if (typeof step.output_path === 'string' && step.output_path.includes('†')) {
    const parsed = parseOutputPath(step.output_path);
    if (parsed.ok) (out ??= { ...step }).output_path = formatOutputPath(parsed.success, parsed.failure);
  }
  const fb = step.fallback_action;
  if (isRecord(fb) && fb.parameters !== undefined) {
    const params = normalizeLegacyReferences(fb.parameters);
    if (params !== fb.parameters) (out ??= { ...step }).fallback_action = { ...fb, parameters: params };
  }
  if (step.subplan != null) {
    const id = typeof step.id === 'string' ? step.id : '?';
    if (depth + 1 > limits.max_depth + 1) {
      (out ??= { ...step }).subplan = undefined;
    } else {
      if (depth + 1 > limits.max_depth) {
        findings.push({
          code: 'too_deep',
          message: `Step "${prefix}${id}" has a sub-plan nested ${depth + 1} deep; the limit (max_depth) is ${limits.max_depth}`,
          step_id: prefix + id,
          path: ['subplan'],
        });
      }
      const sub = preparePlan(step.subplan, depth + 1, `${prefix}${id}/`, [...path, 'subplan'], ctx);
      if (sub !== step.subplan) (out ??= { ...step }).subplan = sub;
    }
  }
  return out ?? step;
}

type Path = (string | number)[];
type Preparation = { limits: Limits; findings: Finding[]; refuseUnknownKeys: boolean };

// `inferred_dependencies` is what GET /v1/runs/{id}/plans/{version} adds to a plan: a plan read back
// from the API is accepted as it is (the field is derived, so it is ignored).
const PLAN_KEYS: ReadonlySet<string> = new Set([
  ...Object.keys(PlanInputSchema.shape),
  'inferred_dependencies',
]);
const STEP_KEYS: ReadonlySet<string> = new Set(Object.keys(PlanStepInputSchema.shape));
const FALLBACK_KEYS: ReadonlySet<string> = new Set(['action', 'parameters']);

/** One `schema` finding listing the keys of `obj` that `known` lacks, each with its likely meaning. */
function checkKeys(
  obj: unknown,
  known: ReadonlySet<string>,
  path: Path,
  stepId: string | undefined,
  ctx: Preparation,
): void {
  if (!isRecord(obj)) return;
  let unknown: string[] | null = null;
  for (const k of Object.keys(obj)) if (!known.has(k)) (unknown ??= []).push(k);
  if (unknown === null) return;
  const where = path.length === 0 ? 'plan' : formatPath(path);
  const finding: Finding = {
    code: 'schema',
    message: `${where}: ${unknownKeysMessage(unknown, [...known])}`,
    path,
  };
  if (stepId !== undefined) finding.step_id = stepId;
  ctx.findings.push(finding);
}

function schemaFinding(issue: z.core.$ZodIssue, plan: unknown): Finding {
  const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
  const where = path.length === 0 ? 'plan' : formatPath(path);
  const finding: Finding = { code: 'schema', message: `${where}: ${issueText(issue)}`, path };
  // Name the step the issue is in (`parent/child` for sub-plans) when its id is readable.
  const ids: string[] = [];
  let node: unknown = plan;
  for (let i = 0; i < path.length; i++) {
    if (!isRecord(node) && !Array.isArray(node)) break;
    node = (node as Record<PropertyKey, unknown>)[path[i]!];
    if (path[i - 1] === 'steps' && typeof path[i] === 'number') {
      ids.push(isRecord(node) && typeof node.id === 'string' ? node.id : `#${path[i]}`);
    }
  }
  if (ids.length > 0) finding.step_id = ids.join('/');
  return finding;
}
