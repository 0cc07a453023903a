/** `GET /v1/tools` — the tools a plan step's `action` can name, with their JSON schemas. */
import { createRoute, z } from '@hono/zod-openapi';
import { loadMcpTools, mcpUnavailable } from '../../mcp/worker-tools';
import { errorResponses, V1_SECURITY } from '../openapi';
import { ToolListSchema } from '../schemas/tool';
import type { App } from '../types';

const listTools = createRoute({
  method: 'get',
  path: '/v1/tools',
  operationId: 'listTools',
  tags: ['tools'],
  summary: 'List registered tools',
  description:
    "Built-in tools, the demo pack when DEMO_TOOLS=true, the MCP_SERVERS tools and a team's own. Sorted " +
    'by name. `unavailable` says which MCP_SERVERS entries are malformed, which MCP servers could not be ' +
    'listed and which tools a server lists were ' +
    'left out, and why. `refresh=true` lists the MCP servers again instead of using the cached listings.',
  security: V1_SECURITY,
  request: {
    query: z.object({
      refresh: z
        .enum(['true', 'false'])
        .optional()
        .openapi({ description: 'List the MCP servers again, bypassing the KV and isolate caches' }),
    }),
  },
  responses: {
    200: {
      description: 'The registered tools',
      content: { 'application/json': { schema: ToolListSchema } },
    },
    ...errorResponses(401),
  },
});

/** Registers `GET /v1/tools`. */
export function registerToolRoutes(app: App): void {
  app.openapi(listTools, async (c) => {
    if (c.req.valid('query').refresh === 'true' && c.env.MCP_SERVERS)
      await loadMcpTools(c.env, { refresh: true });
    return c.json({ tools: c.var.tools().describe(), unavailable: mcpUnavailable(c.env) }, 200);
  });
}
