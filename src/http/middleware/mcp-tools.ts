/** Loads the tools of `MCP_SERVERS` (KV-cached listings) before a route builds the tool registry. */
import type { MiddlewareHandler } from 'hono';
import { loadMcpTools } from '../../mcp/worker-tools';
import type { AppEnv } from '../types';

/**
 * @example app.use('/v1/*', mcpToolsLoaded())
 */
export function mcpToolsLoaded(): MiddlewareHandler<AppEnv> {
  return async function mcpToolsLoaded(c, next) {
    if (c.env.MCP_SERVERS) await loadMcpTools(c.env);
    await next();
  };
}
