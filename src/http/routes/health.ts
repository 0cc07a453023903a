/** `GET /health` — liveness, public. */
import { createRoute, z } from '@hono/zod-openapi';
import type { App } from '../types';

const health = createRoute({
  method: 'get',
  path: '/health',
  operationId: 'getHealth',
  tags: ['meta'],
  security: [],
  summary: 'Liveness check',
  responses: {
    200: {
      description: 'The Worker is up',
      content: { 'application/json': { schema: z.object({ ok: z.literal(true) }) } },
    },
  },
});

/** Registers `GET /health`. */
export function registerHealthRoutes(app: App): void {
  app.openapi(health, (c) => c.json({ ok: true as const }, 200));
}
