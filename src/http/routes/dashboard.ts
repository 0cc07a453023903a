/** `GET /` — the dashboard (SPEC §6): a static HTML page over the `/v1` API, public like `/health`. */
import { createRoute, z } from '@hono/zod-openapi';
import { dashboardHeaders } from '../dashboard/headers';
import { DASHBOARD_HTML } from '../dashboard/page';
import type { App } from '../types';

const dashboard = createRoute({
  method: 'get',
  path: '/',
  operationId: 'getDashboard',
  tags: ['meta'],
  security: [],
  summary: 'The dashboard',
  description:
    'A self-contained HTML page (inline script and styles allowed by hash in its Content-Security-Policy) ' +
    'that lists runs, follows one live, starts plans and shows the tools. It calls the /v1 API from the ' +
    'browser, with the bearer token the user enters.',
  responses: {
    200: { description: 'The dashboard page', content: { 'text/html': { schema: z.string() } } },
  },
});

/** Registers `GET /`. */
export function registerDashboardRoutes(app: App): void {
  // HTML, not a JSON response: documented here, served by a plain handler.
  app.openAPIRegistry.registerPath(dashboard);
  app.get('/', async (c) => c.html(DASHBOARD_HTML, 200, await dashboardHeaders()));
}
