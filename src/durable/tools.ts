/**
 * The registry a Worker runs with, composed in one place: the built-in tools, the runtime tools
 * (agent.dispatch, human.input, plan.*), the demo pack when `DEMO_TOOLS=true`, the tools of
 * `MCP_SERVERS` loaded so far (`loadMcpTools` at the entry points), and a team's own tools.
 */
import type { AnyTool, ToolRegistry } from '../executor/registry';
import { createToolRegistry, builtinTools, type ToolEnv } from '../executor/tools';
import { demoTools } from '../executor/tools/demo';
import { loadedMcpTools, mcpMissingPrefixes, mcpUnavailable, type McpEnv } from '../mcp/worker-tools';
import { runtimeTools } from './runtime-tools';

/** The registry for a Worker's bindings (the same object for the same bindings). */
export type ToolSource = (env: ToolEnv & McpEnv) => ToolRegistry;

/**
 * Builds the registry `env` calls for, with `own` tools added after edgeplan's.
 * @example workerToolRegistry(env).has('agent.dispatch'); // true
 */
export function workerToolRegistry(env: ToolEnv & McpEnv, own: readonly AnyTool[] = []): ToolRegistry {
  const registry = createToolRegistry(env);
  for (const tool of loadedMcpTools(env)) registry.register(tool);
  for (const { prefix, server, reason } of mcpMissingPrefixes(env))
    registry.markUnavailable(prefix, `MCP server "${server}" ${reason}`);
  for (const { server, name, reason } of mcpUnavailable(env)) {
    if (name !== undefined)
      registry.markToolUnavailable(
        name,
        `MCP server "${server}" lists "${name.slice(`mcp.${server}.`.length)}", but it is left out: ${reason}`,
      );
  }
  for (const tool of runtimeTools(() => registry)) registry.register(tool);
  for (const tool of own) registry.register(tool);
  return registry;
}

/**
 * Names edgeplan's own tools take, whether or not `DEMO_TOOLS` is on.
 * @example reservedToolNames().has('demo.echo'); // true
 */
export function reservedToolNames(): Set<string> {
  const runtime = runtimeTools(() => {
    throw new Error('reservedToolNames: the registry is never read');
  });
  return new Set([...builtinTools, ...demoTools, ...runtime].map((t) => t.name));
}

/**
 * Checks `own` tools (a name edgeplan uses, or two tools with one name, throws an Error naming it) and
 * returns the source every part of the Worker reads its registry from — one registry per bindings
 * object, which Workers hand every request and batch of an isolate.
 * @example
 * const tools = toolSource([greet]);
 * tools(env).get('example.greet');
 */
export function toolSource(own: readonly AnyTool[] = []): ToolSource {
  const reserved = reservedToolNames();
  const seen = new Set<string>();
  for (const tool of own) {
    checkDefinition(tool);
    if (tool.name.startsWith('mcp.'))
      throw new Error(
        `edgeplan: tool "${tool.name}": names starting with "mcp." are MCP servers' tools; give your tool another name`,
      );
    if (reserved.has(tool.name))
      throw new Error(`edgeplan: tool "${tool.name}" is built in; give your tool another name`);
    if (seen.has(tool.name)) throw new Error(`edgeplan: tool "${tool.name}" is given twice`);
    seen.add(tool.name);
  }
  const registries = new WeakMap<ToolEnv, { registry: ToolRegistry; mcp: readonly AnyTool[] }>();
  return (env) => {
    const mcp = loadedMcpTools(env);
    let entry = registries.get(env);
    // MCP listings arrive (and refresh) after the first request: a new listing, a new registry.
    if (!entry || entry.mcp !== mcp) {
      entry = { registry: workerToolRegistry(env, own), mcp };
      registries.set(env, entry);
    }
    return entry.registry;
  };
}

/** A tool name a plan can say and a reference can name: `team.search`, `crm_v2.lookup`. */
const TOOL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,199}$/;

/** Refuses a team tool a plan could not call or the registry could not describe, naming what is wrong. */
function checkDefinition(tool: AnyTool): void {
  const name = typeof tool.name === 'string' ? tool.name : String(tool.name);
  const wrong = (what: string) => new Error(`edgeplan: tool "${name}": ${what}`);
  if (!TOOL_NAME.test(name))
    throw wrong('a name is letters, digits and "_", with ".", "-" or ":" between parts (e.g. team.search)');
  if (typeof tool.version !== 'string' || tool.version === '')
    throw wrong(
      'give it a version (e.g. version: "1"): results cached for a deterministic tool are kept per version',
    );
  if (typeof tool.run !== 'function') throw wrong('run must be a function (input, ctx) => Promise<output>');
  if (typeof (tool.input as { safeParse?: unknown } | undefined)?.safeParse !== 'function')
    throw wrong('input must be a zod schema (e.g. z.object({ q: z.string() }))');
}
