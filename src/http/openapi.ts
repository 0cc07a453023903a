/**
 * The generated OpenAPI 3.1 document (`GET /openapi.json`) and the pieces route modules use to
 * describe themselves in it: the error envelope schema, {@link errorResponses}, {@link V1_SECURITY}.
 * Nothing in the document is written by hand — it is what the registered routes declare.
 */
import { z } from '@hono/zod-openapi';
import type { ErrorStatus } from './errors';
import type { App } from './types';
import { version } from '../../package.json';
import { ToolCallSchema } from './schemas/plan';

/** `{ error: { code, message, details? } }`, as the `Error` component. */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ description: 'Stable machine-readable code', example: 'invalid_request' }),
      message: z.string().openapi({ description: 'What went wrong, where, and what was expected' }),
      details: z.unknown().optional().openapi({ description: 'Structured detail, e.g. zod issues' }),
    }),
  })
  .openapi('Error');

const ERROR_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: 'Bad request: `invalid_request` (the zod issues are in `details.issues`) or `invalid_json`',
  401: 'Missing or wrong bearer token (`unauthorized`)',
  403: 'Not allowed (`forbidden`), or a browser on another site sent it without a token (`cross_site_request`)',
  404: 'No such resource or route (`not_found`)',
  405: 'The path exists, but not for this method (`method_not_allowed`; the `Allow` header lists its methods)',
  409: 'Not allowed in the current state (`conflict`)',
  410: 'The link was used or has expired (`gone`)',
  413: 'Body larger than the limit (`payload_too_large`)',
  415: 'Body is not JSON (`unsupported_media_type`)',
  422: 'The plan has validation findings (`invalid_plan`), or a goal cannot be planned (`planning_unavailable`: no LLM configured; `planning_failed`: no valid plan, the trace in `details.planning_trace`)',
  426: 'This endpoint needs a WebSocket upgrade (`upgrade_required`)',
  429: 'Too many requests (`rate_limited`)',
  500: 'Internal error (`internal`)',
  503: 'The run waits for a newer release to be deployed again (`run_newer_format`, after a rollback), its deletion could not be finished yet (`deletion_pending`), or a run with `approval.revisions: "ask"` reached a run object still on the previous release while a deploy rolls out (`deploy_in_progress`: it was removed; send the request again); `Retry-After` says when to ask again',
};

type ErrorResponse = { description: string; content: { 'application/json': { schema: typeof ErrorSchema } } };

/**
 * Declares error responses for a route, so the document lists them and an `app.openapi` handler may
 * `return jsonError(c, code, …)` for those statuses.
 * @example responses: { 200: {…}, ...errorResponses(400, 401, 404) }
 */
export function errorResponses<const S extends ErrorStatus>(...statuses: S[]): Record<S, ErrorResponse> {
  const out = {} as Record<S, ErrorResponse>;
  for (const s of statuses) {
    out[s] = { description: ERROR_DESCRIPTIONS[s], content: { 'application/json': { schema: ErrorSchema } } };
  }
  return out;
}

/**
 * The errors any `/v1` route with a JSON body can answer before its handler runs (403: a browser on
 * another site, src/http/middleware/cross-site.ts).
 */
export const V1_BODY_ERRORS = [400, 401, 403, 413, 415] as const;

/** `security` for `/v1` routes: the bearer token (`API_TOKEN`; none needed only with ALLOW_ANONYMOUS=true). */
export const V1_SECURITY = [{ bearerAuth: [] }];

/** Serves the document at `GET /openapi.json`, generated from the routes registered on `app`. */
export function registerOpenApiDoc(app: App): void {
  // Referenced by `$ref` from the plan field of request bodies.
  app.openAPIRegistry.register('ToolCall', ToolCallSchema);
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description:
      'Required on /v1 routes: the API_TOKEN secret (without it /v1 is closed unless ALLOW_ANONYMOUS=true)',
  });
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/openapi.json',
    tags: ['meta'],
    security: [],
    operationId: 'getOpenApiDocument',
    summary: 'This document (OpenAPI 3.1)',
    responses: {
      200: {
        description: 'The document, its server the origin it was asked from',
        content: { 'application/json': { schema: { type: 'object' } } },
      },
    },
  });
  app.get('/openapi.json', (c) => c.json(openApiDocument(app, new URL(c.req.url).origin)));
}

/**
 * The document for a deployment at `origin`. The committed copy (src/client/openapi.json, from which
 * the client's types are generated) is this with `http://localhost:8787`, what `npm start` serves.
 * @example openApiDocument(createApp(), 'https://edgeplan.example.workers.dev')
 */
export function openApiDocument(app: App, origin: string) {
  return withRateLimitResponses(
    app.getOpenAPI31Document({
      openapi: '3.1.0',
      info: {
        title: 'edgeplan',
        version,
        description: 'Goal → validated plan (a DAG of tool calls) → durable execution on Cloudflare.',
      },
      servers: [{ url: origin, description: 'This deployment' }],
      tags: [
        { name: 'runs', description: 'Start, read, follow and steer runs' },
        { name: 'plans', description: 'Plan a goal, validate a plan' },
        { name: 'tools', description: 'The tools plans may call' },
        { name: 'meta', description: 'Health, the dashboard, this reference' },
      ],
    }),
  );
}

/**
 * Every `/v1` operation may answer 429 when the deployment binds `RATE_LIMITER` (the middleware runs
 * before any route): documented on each, once, here.
 */
function withRateLimitResponses<D extends { paths?: object }>(doc: D): D {
  const tooMany = {
    description: `${ERROR_DESCRIPTIONS[429]}, when the deployment binds RATE_LIMITER; see Retry-After`,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
  for (const [path, item] of Object.entries(doc.paths ?? {}) as [string, object][]) {
    if (!path.startsWith('/v1/')) continue;
    for (const op of Object.values(item) as unknown[]) {
      const responses = (op as { responses?: Record<string, unknown> }).responses;
      if (responses) responses['429'] ??= tooMany;
    }
  }
  return doc;
}
