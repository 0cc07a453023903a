/**
 * `mcpTools` as the package exports it: a team's servers and options checked where they enter. A
 * server entry is held to what `MCP_SERVERS` takes (`mcp_config_invalid` naming the entry and
 * field), and an option of the wrong type or a misspelt key (`onListErrors`, `ttl_seconds`) is
 * `invalid_options` at once — not ignored, to show up as a missing tool or a listing never cached.
 */
import { z } from 'zod';
import { parseMcpServers, type McpServerConfig } from '../mcp/config';
import { mcpTools as listedTools, type McpToolsOptions } from '../mcp/tools';
import type { AnyTool } from '../executor/registry';
import { checkOptions, fn, optionsObject } from './parse-options';

/** Workers KV's shape as the listing cache uses it (a `KVNamespace`, or a Map-backed stand-in). */
const listingCache = z.custom<McpToolsOptions['kv']>(
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    typeof (v as { get?: unknown }).get === 'function' &&
    typeof (v as { put?: unknown }).put === 'function',
  { error: 'must have get(key, "json") and put(key, value, {expirationTtl}), as a KV namespace does' },
);

const mcpToolsOptionsSchema = optionsObject({
  env: z.record(z.string(), z.unknown(), {
    error: 'must be an object of the values `${NAME}` header placeholders read (the Worker’s env, or {})',
  }),
  kv: listingCache.optional(),
  ttlSeconds: z.number().finite().min(60).optional(),
  refresh: z.boolean().optional(),
  kvMaxBytes: z.int().positive().optional(),
  fetch: fn.optional(),
  signal: z.instanceof(AbortSignal, { error: 'must be an AbortSignal' }).optional(),
  onListError: fn.optional(),
  onLeftOut: fn.optional(),
});

/**
 * Lists every server's tools as edgeplan tools named `mcp.<server>.<tool>`, after checking what it
 * was given.
 * @example const tools = await mcpTools([{ name: 'files', url: 'http://127.0.0.1:8787/mcp' }], { env: {} });
 */
export async function mcpTools(
  servers: readonly McpServerConfig[],
  opts: McpToolsOptions,
): Promise<AnyTool[]> {
  const checked = parseMcpServers(servers);
  return listedTools(checked, checkOptions('mcpTools options', mcpToolsOptionsSchema, opts));
}
