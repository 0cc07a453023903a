/**
 * The agent a {@link PlanningPattern} plans and executes for (seed 000 §5): its tools, an optional
 * system prompt, where its plans come from, and its callbacks. A plain object works everywhere a
 * pattern takes an agent; the {@link Agent} class adds seed 000's `agent.run(query)`.
 */
import { ToolRegistry, type AnyTool } from '../executor/registry';
import type { Clock, IdSource } from '../plan/model';
import type { Planner, Rule } from '../planner/contracts';
import type { PlanningHooks } from './callbacks';
import type { PlanProvider } from '../engine/plan-provider';
import type { LlmOptions } from './pipeline-provider';
import type { PlanningPattern, RunOptions } from './planning-pattern';
import type { PlanExecutionResult } from './result';

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
 * @example
 * const agent = new Agent({ pattern: new PlanningPattern({ maxSteps: 15 }), tools: [webSearch, writeFile],
 *   systemPrompt: 'You are a research assistant.', planner });
 * const result = await agent.run('Compare the top 3 web frameworks');
 */
export class Agent implements AgentSpec {
  readonly pattern: PlanningPattern;
  readonly tools: ToolRegistry;
  readonly systemPrompt?: string;
  readonly planner?: Planner | PlanProvider;
  readonly llm?: LlmOptions;
  readonly rules?: readonly Rule[];
  readonly callbacks?: PlanningHooks;
  readonly env?: Record<string, unknown>;
  readonly clock?: Clock;
  readonly ids?: IdSource;

  constructor(spec: AgentSpec & { pattern: PlanningPattern }) {
    this.pattern = spec.pattern;
    this.tools = toolRegistry(spec.tools);
    if (spec.systemPrompt !== undefined) this.systemPrompt = spec.systemPrompt;
    if (spec.planner !== undefined) this.planner = spec.planner;
    if (spec.llm !== undefined) this.llm = spec.llm;
    if (spec.rules !== undefined) this.rules = spec.rules;
    if (spec.callbacks !== undefined) this.callbacks = spec.callbacks;
    if (spec.env !== undefined) this.env = spec.env;
    if (spec.clock !== undefined) this.clock = spec.clock;
    if (spec.ids !== undefined) this.ids = spec.ids;
  }

  /** Plans and executes `query` with this agent's pattern. */
  run(query: string, options?: RunOptions): Promise<PlanExecutionResult> {
    return this.pattern.execute(this, query, options);
  }
}

/**
 * The agent's tools as a registry.
 * @example toolRegistry([webSearch, readFile]).names(); // ['read_file', 'web_search']
 */
export function toolRegistry(tools: AgentSpec['tools']): ToolRegistry {
  return tools instanceof ToolRegistry ? tools : new ToolRegistry(tools);
}
