/**
 * What a plan imported from a TEA workflow carries in `metadata.tea`, read back with zod: the
 * workflow's `settings`, `variables` and `state_schema`, where each `with:` string sits in the YAML
 * (for template errors), which parameters are rendered later (a `subtask_executor`'s, per subtask),
 * `output:` mappings, and — for a workflow with conditions or loops — its navigation graph. The
 * engine renders parameters and navigates with it; everything here is plain data.
 */
import { z } from 'zod';
import type { Plan } from './model';

/** One navigation rule: go `to` when `if` holds (no `if`: always). Rules are tried in order. */
const RuleSchema = z.object({ to: z.string(), if: z.string().optional() });

const GraphSchema = z.object({
  entry: z.string(),
  /** A node may be entered at most this many times; the visit after that fails the run. */
  max_iterations: z.number().int().min(1),
  /** Per node: its `condition:` (skipped when false) and where it goes next. */
  nodes: z.record(z.string(), z.object({ condition: z.string().optional(), next: z.array(RuleSchema) })),
});

export const TeaMetaSchema = z.object({
  settings: z.record(z.string(), z.unknown()).default({}),
  variables: z.record(z.string(), z.unknown()).default({}),
  state_schema: z.record(z.string(), z.unknown()).optional(),
  /** node → parameter path → YAML line of the string (1-based; for a block scalar, its first line). */
  lines: z.record(z.string(), z.record(z.string(), z.number())).default({}),
  /** node → its `with:` as written: Jinja templates, rendered when the node runs. */
  params: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
  /** node → top-level parameters left as written (rendered later, e.g. per subtask). */
  raw: z.record(z.string(), z.array(z.string())).default({}),
  /** node → `output:` mapping (key → template reading `result`). */
  outputs: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
  /** Child plans run by plan.execute: `subtask.*` is readable, and the parent's state. */
  subtasks: z.boolean().optional(),
  /** Subtasks completed before plan.execute ran (skipped, kept in its result as they were). */
  preserved: z.array(z.record(z.string(), z.unknown())).optional(),
  /** A subtask's dependencies as the plan gave them (those on preserved subtasks are not the run's). */
  dependencies: z.record(z.string(), z.array(z.string())).optional(),
  graph: GraphSchema.optional(),
  /** Names `${VAR}` in `settings` reads: expanded from the Worker's vars and secrets as a tool is called. */
  env_names: z.array(z.string()).default([]),
});

export type TeaMeta = z.infer<typeof TeaMetaSchema>;
export type TeaGraph = z.infer<typeof GraphSchema>;
export const TEA_END = '__end__';
export const TEA_START = '__start__';
export const DEFAULT_MAX_ITERATIONS = 25;

const cache = new WeakMap<Plan, TeaMeta | null>();

/**
 * The TEA metadata of a plan, or null for a plan that is not a TEA workflow.
 * @example teaMetaOf(plan)?.graph?.entry // 'analyze_codebase'
 */
export function teaMetaOf(plan: Plan | null | undefined): TeaMeta | null {
  if (!plan) return null;
  const hit = cache.get(plan);
  if (hit !== undefined) return hit;
  const raw = plan.metadata?.tea;
  const parsed = raw === undefined ? null : TeaMetaSchema.safeParse(raw);
  const meta = parsed?.success ? parsed.data : null;
  cache.set(plan, meta);
  return meta;
}

/**
 * `plan` reading no Worker variable outside `allowed` through its TEA settings. The caller who creates
 * a run is trusted with the Worker's variables; a plan that comes later — a model's plan or revision,
 * an approver's Modify through an approval link (which needs no API token), a child plan a step
 * passes on — could otherwise name any variable in `metadata.tea.env_names` and send its value out.
 * @example limitEnvNames(modified, teaMetaOf(state.plan)?.env_names ?? []) // no new names
 */
export function limitEnvNames(plan: Plan, allowed: readonly string[]): Plan {
  const tea: unknown = plan.metadata?.tea;
  if (typeof tea !== 'object' || tea === null || Array.isArray(tea)) return plan;
  const names: unknown = (tea as { env_names?: unknown }).env_names;
  const env_names = Array.isArray(names) ? names.filter((n) => allowed.includes(n as string)) : [];
  return { ...plan, metadata: { ...plan.metadata, tea: { ...tea, env_names } } };
}

/** `next` as a later version of `current`: it reads no variable `current` could not. */
export function pinEnvNames(next: Plan, current: Plan | null): Plan {
  return limitEnvNames(next, teaMetaOf(current)?.env_names ?? []);
}
