/**
 * The agent a {@link PlanningPattern} plans and executes for (seed 000 §5): its tools, an optional
 * system prompt, where its plans come from, and its callbacks. A plain object works everywhere a
 * pattern takes an agent; the {@link Agent} class adds seed 000's `agent.run(query)`.
 */
import type { ToolRegistry } from '../executor/registry';

export { toolRegistry, type AgentSpec } from './agent-spec';
import type { Clock, IdSource } from '../plan/model';
import type { Planner, Rule } from '../planner/contracts';
import type { PlanningHooks } from './callbacks';
import { toolRegistry, type AgentSpec } from './agent-spec';
import type { PlanProvider } from '../engine/plan-provider';
import { checkLlmOptions, type LlmOptions } from './llm-options';
import type { PlanningPattern, RunOptions } from './planning-pattern';
import type { PlanExecutionResult } from './result';

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
    if (spec.llm !== undefined) this.llm = checkLlmOptions(spec.llm);
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
