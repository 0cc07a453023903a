/** The tool registry for a request's bindings, built once per bindings object and MCP tool set. */
import type { AnyTool, ToolRegistry } from '../executor/registry';
import { workerToolRegistry } from '../durable/tools';
import { loadedMcpTools } from '../mcp/worker-tools';

// Workers hand every request of an isolate the same `env` object, so this builds one registry per
// isolate (again when the MCP tools were listed anew); tests that pass their own bindings get their own.
const registries = new WeakMap<Env, { registry: ToolRegistry; mcp: AnyTool[] }>();

/**
 * The registry `DEMO_TOOLS` / `HTTP_ALLOWLIST` / `MCP_SERVERS` in `env` call for (the MCP tools as the
 * `loadMcpTools` middleware last loaded them).
 * @example toolRegistryFor(c.env).describe()
 */
export function toolRegistryFor(env: Env): ToolRegistry {
  const mcp = loadedMcpTools(env);
  let entry = registries.get(env);
  if (!entry || entry.mcp !== mcp) {
    // Spread: `Env` is an interface, which TypeScript will not match against ToolEnv's index signature.
    entry = { registry: workerToolRegistry({ ...env }), mcp };
    registries.set(env, entry);
  }
  return entry.registry;
}
