/**
 * The registry a Worker runs with: the built-in and demo tools, the runtime tools, and the tools of
 * `MCP_SERVERS` loaded so far (`loadMcpTools` at the entry points).
 */
import type { ToolRegistry } from '../executor/registry';
import { createToolRegistry, type ToolEnv } from '../executor/tools';
import { loadedMcpTools, type McpEnv } from '../mcp/worker-tools';
import { runtimeTools } from './runtime-tools';

export function workerToolRegistry(env: ToolEnv & McpEnv): ToolRegistry {
  const registry = createToolRegistry(env);
  for (const tool of loadedMcpTools(env)) registry.register(tool);
  for (const tool of runtimeTools(() => registry)) registry.register(tool);
  return registry;
}
