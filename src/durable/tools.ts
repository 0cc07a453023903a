/** The registry a Worker runs with: the built-in and demo tools plus the runtime tools. */
import type { ToolRegistry } from '../executor/registry';
import { createToolRegistry, type ToolEnv } from '../executor/tools';
import { runtimeTools } from './runtime-tools';

export function workerToolRegistry(env: ToolEnv): ToolRegistry {
  const registry = createToolRegistry(env);
  for (const tool of runtimeTools(() => registry)) registry.register(tool);
  return registry;
}
