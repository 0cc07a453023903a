/**
 * Planner dependencies from a Worker's bindings: templates from KV, provenance and reliability in
 * D1, LLM settings and secrets from the environment (LLM calls go through `llmFetch()`, the test
 * seam, unless `overrides.fetch` is given). Types only
 * from the Workers runtime — nothing here imports `cloudflare:*`.
 */
import type { ToolRegistry } from '../executor/registry';
import type { Clock, IdSource } from '../plan/model';
import { D1ProvenanceStore } from './provenance-d1';
import { secretsOf } from './redact';
import { KvTemplateStore } from './template-store';
import type { PlannerDeps } from './types';

/** The bindings planning reads. */
export type PlannerBindings = {
  readonly KV: KVNamespace;
  readonly DB: D1Database;
  readonly OPENAI_API_KEY?: string | undefined;
  readonly OPENAI_BASE_URL?: string | undefined;
  readonly PLANNER_MODEL?: string | undefined;
  readonly PLANNER_FALLBACK_MODELS?: string | undefined;
};

/**
 * Everything `planGoal` / `planFromState` need in a Worker or Durable Object.
 * @example
 * const out = await planGoal({ goal }, plannerDepsFor(env, { tools: createToolRegistry({ ...env }), clock, ids }));
 */
export function plannerDepsFor(
  env: PlannerBindings,
  sources: { tools: ToolRegistry; clock: Clock; ids: IdSource },
  overrides: Partial<PlannerDeps> = {},
): PlannerDeps {
  return {
    env,
    ...sources,
    templates: new KvTemplateStore(env.KV),
    provenance: new D1ProvenanceStore(env.DB),
    secrets: secretsOf({ ...env }),
    ...overrides,
  };
}
