/**
 * The registry a deployment runs with: the built-in tools, plus the demo pack when DEMO_TOOLS=true.
 * Loads in plain Node too — nothing here imports `cloudflare:*` at runtime.
 */
import { ToolRegistry, type AnyTool } from '../registry';
import { agentMessage } from './agent-message';
import { demoTools } from './demo';
import { httpRequest } from './http-request';
import { llmCall } from './llm-call';

/**
 * What the registry reads from the environment. No index signature, so both the Worker's `Env` and a
 * plain `Record<string, unknown>` fit.
 */
export type ToolEnv = { readonly DEMO_TOOLS?: unknown; readonly HTTP_ALLOWLIST?: unknown };

/** Tools every deployment has. plan.*, agent.dispatch and human.input join this list as they land. */
export const builtinTools: readonly AnyTool[] = [httpRequest, llmCall, agentMessage];

/**
 * Builds the registry for `env`. Tools read their configuration (HTTP_ALLOWLIST, OPENAI_*) from
 * `ctx.env` at call time, so one registry serves every request.
 * @example
 * const tools = createToolRegistry(env);
 * tools.has('demo.counter'); // true when env.DEMO_TOOLS === 'true'
 */
export function createToolRegistry(env: ToolEnv): ToolRegistry {
  const registry = new ToolRegistry(builtinTools);
  if (env.DEMO_TOOLS === 'true') for (const tool of demoTools) registry.register(tool);
  return registry;
}
