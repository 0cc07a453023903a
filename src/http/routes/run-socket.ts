/**
 * `GET /v1/runs/:id/ws`: a run followed live over WebSocket (the run object serves the socket:
 * src/durable/sockets.ts). A 101 upgrade is not a JSON answer, so the route is documented in the
 * OpenAPI registry and served by a plain handler, which checks the query and the subprotocol first and
 * answers a GET without the upgrade with what a socket would meet.
 */
import { createRoute } from '@hono/zod-openapi';
import { errorResponses, V1_SECURITY } from '../openapi';
import { jsonError } from '../errors';
import { validationHook } from '../validation';
import { RunIdParamSchema, WsQuerySchema } from '../schemas/run';
import { progressOf } from '../run-progress';
import { chooseSubprotocol } from '../ws-subprotocol';
import type { App } from '../types';
import { notFound, pastLastEvent, stubFor, tags } from '../run-helpers';

const ws = createRoute({
  method: 'get',
  path: '/v1/runs/{id}/ws',
  tags,
  operationId: 'watchRun',
  summary: 'Follow a run live over WebSocket',
  description:
    'Connect with `Upgrade: websocket`. The server sends the events after `after` (the backlog), then ' +
    'each new event as it is committed: one JSON `RunEvent` per text message, in seq order. To resume ' +
    'after a disconnect, reconnect with `after` = the last seq received. An event over 1 MiB is sent ' +
    'with its payload elided (read it from `/events`). The socket takes one message, the text `ping` ' +
    '(answered `pong`); any other frame closes it with 1003 and a reason. A connection is sent at most ' +
    '16 MiB of backlog: past that it closes with 4000, its reason naming the seq to reconnect after (the ' +
    "run's open sockets share the 16 MiB: one opened while others hold it is sent 256 KiB a connection). " +
    'A run serves 100 sockets at once: one more is refused with 429 `too_many_sockets` (follow the run ' +
    'with `/wait` or `/events` instead). A GET without the upgrade answers that `429` too when a socket ' +
    'would meet it (else `426`): a browser, told nothing of a refused upgrade, learns why so.',
  security: V1_SECURITY,
  request: { params: RunIdParamSchema, query: WsQuerySchema },
  responses: {
    101: { description: 'Switching protocols: a WebSocket carrying `RunEvent` messages' },
    ...errorResponses(400, 401, 404, 426),
    429: {
      ...errorResponses(429)[429],
      description:
        'The run has 100 sockets open already (`too_many_sockets`), or too many requests (`rate_limited`); see Retry-After',
    },
  },
});

/** Registers `GET /v1/runs/{id}/ws` (documented, and served by a plain handler). */
export function registerRunSocketRoute(app: App): void {
  // A 101 upgrade is not a JSON response, so the route is documented and served separately.
  app.openAPIRegistry.registerPath(ws);
  app.get('/v1/runs/:id/ws', async (c) => {
    const run = stubFor(c);
    if (!run) return notFound(c);
    // As the validator of a documented route reads a query: a parameter given twice is an array.
    const raw = Object.fromEntries(
      Object.entries(c.req.queries()).map(([k, v]) => [k, v.length === 1 ? v[0] : v]),
    );
    const query = WsQuerySchema.safeParse(raw);
    if (!query.success) return validationHook({ success: false, target: 'query', error: query.error }, c)!;
    if (c.req.header('Upgrade')?.toLowerCase() !== 'websocket') {
      // A plain GET of a run that does not exist is told so, not how to upgrade; of a run serving all
      // the sockets it takes, the `429 too_many_sockets` a socket would meet — how a client whose
      // WebSocket failed to open (a browser is told no status) learns why (client/watch.ts).
      const asked = await run.fetch(new Request('https://run.internal/ws'));
      if (asked.status === 404) return notFound(c);
      if (asked.status !== 426) return asked;
      return jsonError(
        c,
        'upgrade_required',
        'This endpoint speaks WebSocket: connect with an Upgrade: websocket request',
      );
    }
    // A client that offered subprotocols needs one of them accepted (a browser offers the token so).
    const protocol = chooseSubprotocol(c.req.header('Sec-WebSocket-Protocol'));
    if (!protocol.ok) return jsonError(c, 'invalid_request', protocol.message);
    // As /events: a seq past the run's last event is none of its own (the live events that followed
    // would be ones the client says it has).
    const after = query.data.after;
    if (after !== undefined && after > 0) {
      const now = await progressOf(run);
      if (!now) return notFound(c);
      if (after > now.last_seq)
        return pastLastEvent(
          c,
          { after },
          now.last_seq,
          "reconnect with the last seq received from this run's socket, or leave after out for all",
        );
    }
    const res = await run.fetch(c.req.raw);
    if (res.status === 404) return notFound(c);
    if (res.status !== 101 || protocol.protocol === null) return res;
    return new Response(null, {
      status: 101,
      webSocket: res.webSocket,
      headers: { 'Sec-WebSocket-Protocol': protocol.protocol },
    });
  });
}
