/** `GET /v1/tools` — the tools a plan step's `action` can name, with their JSON schemas. */
import { createRoute } from '@hono/zod-openapi';
import { errorResponses, V1_SECURITY } from '../openapi';
import { ToolListSchema } from '../schemas/tool';
import type { App } from '../types';

const listTools = createRoute({
  method: 'get',
  path: '/v1/tools',
  tags: ['tools'],
  summary: 'List registered tools',
  description: 'Built-in tools, plus the demo pack when DEMO_TOOLS=true. Sorted by name.',
  security: V1_SECURITY,
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
  app.openapi(listTools, (c) => c.json({ tools: c.var.tools().describe() }, 200));
}
