/**
 * The HTTP API (SPEC §6): one OpenAPIHono app with the error envelope on every failure, CORS, a
 * rate limit and bearer auth on `/v1/*` (§8), body limits, and a generated OpenAPI document. Routes live in `routes/*`, one module
 * per resource, each exporting `registerXRoutes(app)`.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Clock, IdSource } from '../plan/model';
import { toolSource, type ToolSource } from '../durable/tools';
import { systemClock } from './clock';
import { randomIds } from './ids';
import { accessAuth } from './middleware/access-auth';
import { bearerAuth } from './middleware/auth';
import { bodyLimit, MAX_BODY_BYTES } from './middleware/body-limit';
import { corsFromEnv } from './middleware/cors';
import { crossSite } from './middleware/cross-site';
import { jsonBody } from './middleware/json-body';
import { jsonRpcErrors } from './middleware/json-rpc-errors';
import { rateLimit } from './middleware/rate-limit';
import { mcpToolsLoaded } from './middleware/mcp-tools';
import { whenRouted } from './middleware/when-routed';
import { handleError, notFoundFor } from './on-error';
import { registerOpenApiDoc } from './openapi';
import { registerDashboardRoutes } from './routes/dashboard';
import { registerDocsRoutes } from './routes/docs';
import { registerApprovalPageRoutes } from './routes/approval-page';
import { registerRunPlanningRoutes } from './routes/run-planning';
import { registerHealthRoutes } from './routes/health';
import { registerMcpRoutes } from './routes/mcp';
import { registerMeRoutes } from './routes/me';
import { registerPlanRoutes } from './routes/plans';
import { registerRunRevisionRoutes } from './routes/run-revisions';
import { registerRunRoutes } from './routes/runs';
import { registerRunDeleteRoutes } from './routes/run-delete';
import { registerRunWaitRoutes } from './routes/run-wait';
import { registerToolRoutes } from './routes/tools';
import type { App, AppEnv } from './types';
import { validationHook } from './validation';

export { MAX_BODY_BYTES } from './middleware/body-limit';

/** Route modules, in registration order. Add `registerRunRoutes` etc. here. */
const ROUTE_MODULES: ReadonlyArray<(app: App) => void> = [
  registerHealthRoutes,
  registerMeRoutes,
  registerToolRoutes,
  registerPlanRoutes,
  registerRunRoutes,
  registerRunDeleteRoutes,
  registerRunWaitRoutes,
  registerRunRevisionRoutes,
  registerApprovalPageRoutes,
  registerRunPlanningRoutes,
  registerDashboardRoutes,
  registerDocsRoutes,
  registerMcpRoutes,
];

const APPROVAL_PATH = /^\/v1\/runs\/[^/]+\/approval$/;

/**
 * A request to a run's approval endpoint that presents the link's token and no bearer token: the
 * decision (POST) or the link's page (GET, or HEAD — what a mail scanner checks a link with).
 */
function isApprovalLink(c: Context<AppEnv>): boolean {
  return (
    (c.req.method === 'POST' || c.req.method === 'GET' || c.req.method === 'HEAD') &&
    APPROVAL_PATH.test(c.req.path) &&
    !!c.req.query('token') &&
    !c.req.header('Authorization')
  );
}

export type CreateAppOptions = {
  /** Largest accepted request body in bytes. */
  maxBodyBytes?: number;
  /** Time source for handlers (`c.var.clock`). */
  clock?: Clock;
  /** Id source for handlers (`c.var.ids`). */
  ids?: IdSource;
  /** Where handlers get the registry (`c.var.tools()`); edgeplan's tools alone by default. */
  tools?: ToolSource;
  /**
   * Least milliseconds between two fetches of Cloudflare Access's keys prompted by a token naming a
   * key not yet fetched (a rotation); 30 000 by default, so made-up key ids cannot make every request
   * fetch them.
   */
  accessKeysCooldownMs?: number;
};

/**
 * Builds the app. Bindings arrive per request, so one app serves every request of an isolate; tests
 * call `app.fetch(req, { ...env, API_TOKEN: 't' })` to run it with other bindings.
 * @example
 * const app = createApp();
 * export default { fetch: app.fetch };
 */
export function createApp({
  maxBodyBytes = MAX_BODY_BYTES,
  clock = systemClock,
  ids = randomIds,
  tools = toolSource(),
  accessKeysCooldownMs,
}: CreateAppOptions = {}): App {
  // `strict: false`: `/v1/runs/` is `/v1/runs` (a trailing slash is a typo, not another resource).
  const app: App = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });

  app.use('*', async function provideSources(c, next) {
    c.set('clock', clock);
    c.set('ids', ids);
    c.set('tools', () => tools(c.env));
    c.set('caller', { via: 'anonymous' });
    await next();
  });
  // CORS first: a preflight carries no token and is answered here (only with CORS_ORIGINS set).
  app.use('*', corsFromEnv());
  // The rate limit before auth, so guessing tokens is limited too (per address without a token).
  app.use('/v1/*', rateLimit());
  // Before auth: a page on another site must not act with the browser's Access cookie (src/http/middleware/cross-site.ts).
  app.use('/v1/*', crossSite());
  // Auth before reading the body: an unauthenticated client cannot make us buffer 5 MiB.
  // The approval link carries its own single-use capability (checked by the run), so an approver
  // needs no API token.
  // Cloudflare Access (when configured) first: a verified Access identity needs no API token. One
  // verifier, so both paths share its cached keys.
  const access = accessAuth(accessKeysCooldownMs === undefined ? {} : { cooldownMs: accessKeysCooldownMs });
  app.use('/v1/*', access);
  app.use('/v1/*', bearerAuth({ skip: isApprovalLink }));
  app.use('/mcp', rateLimit());
  app.use('/mcp', access);
  app.use('/mcp', bearerAuth());
  app.use('/mcp', jsonRpcErrors());
  app.use('*', whenRouted(bodyLimit({ maxBytes: maxBodyBytes })));
  app.use('*', whenRouted(jsonBody()));
  app.use('/v1/*', mcpToolsLoaded());

  registerOpenApiDoc(app);
  for (const register of ROUTE_MODULES) register(app);

  app.notFound(notFoundFor(app.routes));
  app.onError(handleError);
  return app;
}
