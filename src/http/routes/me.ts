/** `GET /v1/me` — who the API takes the caller to be (SPEC §8): what the dashboard asks before it asks for a token. */
import { createRoute, z } from '@hono/zod-openapi';
import { errorResponses, V1_SECURITY } from '../openapi';
import type { App, Caller } from '../types';

export const MeSchema = z
  .object({
    authenticated_as: z.string().nullable().openapi({
      description:
        'The identity Cloudflare Access verified — an email, or a service token’s common_name — recorded as `approver` on the decisions this caller makes; null with an API token or an open API',
      example: 'ada@example.com',
    }),
    via: z.enum(['access', 'token', 'anonymous']).openapi({
      description:
        '`access`: a Cloudflare Access token (Cf-Access-Jwt-Assertion) verified; `token`: an API token; `anonymous`: an open API (ALLOW_ANONYMOUS=true)',
    }),
  })
  .openapi('Me');

const me = createRoute({
  method: 'get',
  path: '/v1/me',
  operationId: 'getMe',
  tags: ['meta'],
  summary: 'Who the API takes the caller to be',
  security: V1_SECURITY,
  responses: {
    200: { description: 'The caller', content: { 'application/json': { schema: MeSchema } } },
    ...errorResponses(401),
  },
});

/** The caller as `GET /v1/me` shows it. */
export function meOf(caller: Caller): z.infer<typeof MeSchema> {
  return { authenticated_as: caller.via === 'access' ? caller.identity : null, via: caller.via };
}

/** Registers `GET /v1/me`. */
export function registerMeRoutes(app: App): void {
  app.openapi(me, (c) => c.json(meOf(c.get('caller')), 200));
}
