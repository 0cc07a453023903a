/**
 * `GET /docs` — the API reference: Swagger UI over `/openapi.json`, its script and stylesheet served
 * from the Worker's static assets (`public/docs/`, built by scripts/build-assets.mjs), so it works
 * offline under `wrangler dev`. Public like `/openapi.json`.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { pageHeaders } from '../app-shell';
import type { App } from '../types';

const docs = createRoute({
  method: 'get',
  path: '/docs',
  tags: ['meta'],
  security: [],
  operationId: 'getApiReference',
  summary: 'The API reference (HTML)',
  description:
    'Swagger UI over `/openapi.json`, served from this Worker. Without the static assets (a Worker ' +
    'deployed without `[assets]`), a page that links the document instead.',
  responses: {
    200: { description: 'The API reference page', content: { 'text/html': { schema: z.string() } } },
  },
});

/**
 * The page: Swagger UI's own files from `/docs/` (and its colours made readable), nothing inline, nothing
 * from elsewhere.
 */
export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>edgeplan API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="stylesheet" href="/docs/reference.css">
</head>
<body>
<div id="reference"><noscript>The reference needs JavaScript; the document itself is <a href="/openapi.json">/openapi.json</a>.</noscript></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

const NO_ASSETS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>edgeplan API reference</title></head>
<body><p>This Worker was deployed without its static assets (<code>[assets]</code> in wrangler.toml), so the
interactive reference is not here. The OpenAPI document is at <a href="/openapi.json">/openapi.json</a>.</p></body></html>
`;

const HEADERS = pageHeaders(["font-src 'self' data:"]);

/** Registers `GET /docs`. */
export function registerDocsRoutes(app: App): void {
  app.openAPIRegistry.registerPath(docs);
  app.get('/docs', (c) => c.html(c.env.ASSETS ? DOCS_HTML : NO_ASSETS_HTML, 200, HEADERS));
}
