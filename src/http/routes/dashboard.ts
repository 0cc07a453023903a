/**
 * `GET /` — the dashboard (SPEC §6): the app shell; the app itself (src/ui, built into the Worker's
 * static assets under /app/) calls the /v1 API from the browser with the token the user enters.
 * Public like `/health`.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { APP_HEADERS, appShell, messagePage } from '../app-shell';
import { dashboardAuth } from '../dashboard-auth';
import type { App } from '../types';

const dashboard = createRoute({
  method: 'get',
  path: '/',
  operationId: 'getDashboard',
  tags: ['meta'],
  security: [],
  summary: 'The dashboard',
  description:
    'Runs, a live graph and timeline of each, approval, versions and new runs. The page loads the ' +
    'app from this Worker’s static assets (no CDN) and calls the /v1 API with the token the user enters.',
  responses: {
    200: { description: 'The dashboard page', content: { 'text/html': { schema: z.string() } } },
  },
});

/** Registers `GET /`. */
export function registerDashboardRoutes(app: App): void {
  // HTML, not a JSON response: documented here, served by a plain handler.
  app.openAPIRegistry.registerPath(dashboard);
  app.get('/', (c) =>
    c.env.ASSETS
      ? c.html(appShell('edgeplan', undefined, { auth: dashboardAuth(c.env) }), 200, APP_HEADERS)
      : c.html(
          messagePage(
            'edgeplan',
            'This Worker was deployed without its static assets ([assets] in wrangler.toml), so the dashboard is not here. The API reference is at /docs.',
          ),
          200,
          APP_HEADERS,
        ),
  );
}
