/**
 * What an agent is (seed 000 §5): its tools, an optional system prompt, where its plans come from,
 * and its callbacks — the plain-object form a {@link PlanningPattern} takes.
 */
import { ToolRegistry, type AnyTool } from '../executor/registry';
import type { Clock, IdSource } from '../plan/model';
import type { Planner, Rule } from '../planner/contracts';
import type { PlanProvider } from '../engine/plan-provider';
import type { PlanningHooks } from './callbacks';
import type { LlmOptions } from './llm-options';

/**
 * What an agent is. Plans come from `planner` when given, else from the LLM pipeline with `llm`
 * (an OpenAI-compatible endpoint; pass `fetch` to script it), else from `rules` alone.
 */
export type AgentSpec = {
  tools: ToolRegistry | readonly AnyTool[];
  /** Added to the planner's system prompt (LLM planning). */
  systemPrompt?: string;
  /** A seed-003 planner (`RuleBasedPlanner`, `LlmPlanner`, your own) or a `PlanProvider`. */
  planner?: Planner | PlanProvider;
  /** The LLM the planning pipeline (and `llm.call` steps) use. */
  llm?: LlmOptions;
  /** Rules for the pipeline's rule-based fallback. */
  rules?: readonly Rule[];
  callbacks?: PlanningHooks;
  /** What tools see as `ctx.env`. */
  env?: Record<string, unknown>;
  clock?: Clock;
  ids?: IdSource;
};

/**
 * The agent's tools as a registry.
 * @example toolRegistry([webSearch, readFile]).names(); // ['read_file', 'web_search']
 */
export function toolRegistry(tools: AgentSpec['tools']): ToolRegistry {
  return tools instanceof ToolRegistry ? tools : new ToolRegistry(tools);
}
