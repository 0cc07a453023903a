/**
 * `/v1/runs` (SPEC §6): start runs, read them (snapshot, plan.status, events, replayed state), follow
 * them live over WebSocket, cancel and retry them, and list them from the D1 index.
 */
import { withGoalPlanning } from '../goal-planning';
import { createRoute, z } from '@hono/zod-openapi';
import { errorResponses, V1_BODY_ERRORS, V1_SECURITY } from '../openapi';
import { jsonError } from '../errors';
import { validationHook } from '../validation';
import { requireBody } from '../middleware/require-body';
import { startRun } from '../run-service';
import {
  callerScope,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  idempotentRunId,
  parseIdempotencyKey,
  requestFingerprint,
} from '../idempotency-key';
import {
  CancelSchema,
  CreatedRunSchema,
  CreateRunSchema,
  EventsQuerySchema,
  IdempotencyHeadersSchema,
  ListRunsQuerySchema,
  RetrySchema,
  RunIdParamSchema,
  StateQuerySchema,
  StatusQuerySchema,
  ValuesQuerySchema,
  WsQuerySchema,
} from '../schemas/run';
import {
  DryRunSchema,
  EventsPageSchema,
  PlanStatusSchema,
  RunPageSchema,
  RunSnapshotSchema,
  ValueSchema,
} from '../schemas/run-views';
import { listRuns } from '../run-list';
import { progressOf } from '../run-progress';
import { chooseSubprotocol } from '../ws-subprotocol';
import type { App } from '../types';
import type { RpcResult } from '../../durable/plan-run';
import { parseRunConfig } from '../../plan/config';

import { control, controlRoute, notFound, optionalBody, stubFor, tags } from '../run-helpers';
import { echoed } from '../echoed';

const create = createRoute({
  method: 'post',
  path: '/v1/runs',
  tags,
  operationId: 'createRun',
  summary:
    'Start a run from a plan, an imported source or a goal (planned by the LLM, or the rule planner without one)',
  security: V1_SECURITY,
  middleware: [
    requireBody(
      '{"plan": …} to run a plan, {"goal": "…"} to plan one, or {"format": "tea-yaml" | "llmcompiler", "source": "…"} to import one; "config" and "input" are optional',
    ),
  ],
  description:
    'Send an `Idempotency-Key` header (a UUID v4, say) to make the request safe to retry: every request ' +
    'with the key and the same body is answered with the one run the first created (`Idempotent-Replayed: ' +
    'true` on the replays), even two sent at once; the key with a different body is `422 ' +
    'idempotency_key_reused`. A key is the caller’s own (scoped to its bearer token) and is remembered as ' +
    'long as its run is kept. A dry run (`config.mode: "lazy"`) creates nothing and remembers no key.',
  request: {
    headers: IdempotencyHeadersSchema,
    body: { required: true, content: { 'application/json': { schema: CreateRunSchema } } },
  },
  responses: {
    201: {
      description:
        'The run was created and started — or, for a request with an `Idempotency-Key` that already ' +
        'created it, the same run again (its status now), with `Idempotent-Replayed: true`',
      headers: {
        [IDEMPOTENT_REPLAYED_HEADER]: {
          description:
            '`true` when the `Idempotency-Key` had created this run already: nothing new was started',
          schema: { type: 'string', enum: ['true'] },
        },
      },
      content: { 'application/json': { schema: CreatedRunSchema } },
    },
    200: {
      description: 'Dry run (`config.mode: "lazy"`): the validated plan and its estimates, nothing executed',
      content: { 'application/json': { schema: DryRunSchema } },
    },
    ...errorResponses(...V1_BODY_ERRORS, 409, 422, 500, 503),
  },
});

const get = route(
  'getRun',
  '/v1/runs/{id}',
  'A run: status, plan, step statuses and results, counts, tokens',
  RunSnapshotSchema,
);
const status = route(
  'getRunStatus',
  '/v1/runs/{id}/status',
  'plan.status: counts, progress, optionally the subtasks',
  PlanStatusSchema,
  StatusQuerySchema,
);
const events = route(
  'listRunEvents',
  '/v1/runs/{id}/events',
  'Events in seq order after `after`: a page of at most `limit` events and about 8 MiB; while ' +
    '`has_more`, the next page is `?after=<next_after>`',
  EventsPageSchema,
  EventsQuerySchema,
);
const values = route(
  'getRunValue',
  '/v1/runs/{id}/values',
  'One value of the run by reference (`steps.<id>.output`, `state.<key>`, `input`, parts of them, ' +
    'or `final_output`): where a snapshot points for a value too large to include',
  ValueSchema,
  ValuesQuerySchema,
  [422],
);
const state = route(
  'getRunState',
  '/v1/runs/{id}/state',
  'The run state replayed from its events, as of `at`',
  RunSnapshotSchema,
  StateQuerySchema,
);
/** A 101 upgrade, not a JSON answer: documented here, served by a plain handler. */
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
const cancel = controlRoute('cancelRun', '/v1/runs/{id}/cancel', 'Cancel a run', CancelSchema);
const retry = controlRoute(
  'retryRun',
  '/v1/runs/{id}/retry',
  'Re-run a failed, aborted or cancelled run from its failed step(s), keeping completed results',
  RetrySchema,
);

const list = createRoute({
  method: 'get',
  path: '/v1/runs',
  tags,
  operationId: 'listRuns',
  summary: 'Runs, newest first, from the run index',
  security: V1_SECURITY,
  request: { query: ListRunsQuerySchema },
  responses: {
    200: { description: 'A page of runs', content: { 'application/json': { schema: RunPageSchema } } },
    ...errorResponses(400, 401),
  },
});

/** Registers the `/v1/runs` routes. */
export function registerRunRoutes(app: App): void {
  app.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const raw = await c.req.json<{ config?: Record<string, unknown> }>();
    const rawConfig = raw.config;
    const key = parseIdempotencyKey(c.req.header(IDEMPOTENCY_KEY_HEADER));
    if (!key.ok) return jsonError(c, 'invalid_idempotency_key', key.message);
    const idempotency =
      key.key === undefined
        ? undefined
        : {
            run_id: await idempotentRunId(
              await callerScope(c.req.header('Authorization'), c.env.API_TOKEN),
              key.key,
            ),
            fingerprint: await requestFingerprint(raw),
          };
    const result = await startRun(
      {
        goal: body.goal,
        plan: body.plan,
        format: body.format,
        source: body.source,
        config: withGoalPlanning(body, body.config ?? parseRunConfig({})),
        requireDependencies: rawConfig?.require_dependencies === true,
        failureStrategyGiven:
          rawConfig?.on_step_failure !== undefined || rawConfig?.on_subtask_failure !== undefined,
        input: body.input,
        idempotency,
      },
      {
        env: c.env,
        tools: c.var.tools(),
        clock: c.var.clock,
        ids: c.var.ids,
        origin: new URL(c.req.url).origin,
      },
    );
    if (result.kind === 'error') {
      const wait = (result.details as { retry_after_s?: unknown } | undefined)?.retry_after_s;
      if (typeof wait === 'number') c.header('Retry-After', String(wait));
      return jsonError(c, result.code, result.message, result.details);
    }
    if (result.kind === 'dry_run') {
      const { valid, errors, plan, estimates } = result.validation;
      return c.json({ mode: 'lazy' as const, valid, errors, plan, estimates }, 200);
    }
    const self = `/v1/runs/${result.run_id}`;
    if (result.replayed) c.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
    return c.json(
      {
        run_id: result.run_id,
        status: result.status,
        links: { self, events: `${self}/events`, ws: `${self}/ws` },
      },
      201,
    );
  });

  app.openapi(list, async (c) => {
    const q = c.req.valid('query');
    const page = await listRuns(c.env.DB, q);
    if ('error' in page) return jsonError(c, 'invalid_request', page.error);
    return c.json(page, 200);
  });

  app.openapi(get, async (c) => {
    const run = stubFor(c);
    const snap = run && (await run.getRun());
    return snap ? c.json(snap, 200) : notFound(c);
  });

  app.openapi(status, async (c) => {
    const run = stubFor(c);
    const q = c.req.valid('query');
    const view =
      run &&
      (await run.getStatus({ include_details: q.include_details, include_completed: q.include_completed }));
    return view ? c.json(view, 200) : notFound(c);
  });

  app.openapi(events, async (c) => {
    const run = stubFor(c);
    const now = run && (await progressOf(run));
    if (!run || !now) return notFound(c);
    const q = c.req.valid('query');
    // A seq the run never had (another run's, or one of a run deleted and made again under the same
    // key) was an empty page with next_after = after: a client paging on would never see the events.
    if (q.after > now.last_seq)
      return jsonError(
        c,
        'invalid_request',
        `after ${q.after} is past the last event of run "${echoed(c.req.param('id') ?? '')}" (seq ${now.last_seq}): ` +
          "pass a seq of this run's (next_after from its last page, or its last_seq), or 0 for all",
        { after: q.after, last_seq: now.last_seq },
      );
    return c.json(await run.listEvents(q.after, q.limit), 200);
  });

  app.openapi(values, async (c) => {
    const run = stubFor(c);
    if (!run) return notFound(c);
    const r = (await run.readValue(c.req.valid('query').ref)) as RpcResult<{ ref: string; value: unknown }>;
    if (r.ok) return c.json(r.value, 200);
    if (r.error.code === 'run_not_found') return notFound(c);
    return jsonError(c, VALUE_REFUSALS[r.error.code] ?? 'not_found', r.error.message);
  });

  app.openapi(state, async (c) => {
    const run = stubFor(c);
    const { at } = c.req.valid('query');
    const snap = run && (await run.stateAt(at));
    if (!snap) return notFound(c);
    // Replayed to a seq the run has not reached, the log ends at its last event: a state "as of" an
    // event that had not happened, which the run's next events would then contradict.
    if (at !== undefined && at > snap.last_seq)
      return jsonError(
        c,
        'invalid_request',
        `at ${at} is past the last event of run "${echoed(c.req.param('id') ?? '')}" (seq ${snap.last_seq}): ` +
          "pass a seq of this run's (its last_seq, or a seq from its events), or leave at out for its state now",
        { at, last_seq: snap.last_seq },
      );
    return c.json(snap, 200);
  });

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
        return jsonError(
          c,
          'invalid_request',
          `after ${after} is past the last event of run "${echoed(c.req.param('id') ?? '')}" (seq ${now.last_seq}): ` +
            "reconnect with the last seq received from this run's socket, or leave after out for all",
          { after, last_seq: now.last_seq },
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

  app.openapi(cancel, async (c) => {
    const run = stubFor(c);
    if (!run) return notFound(c);
    const body = await optionalBody(c, CancelSchema);
    if ('error' in body) return jsonError(c, 'invalid_request', body.error);
    return control(c, await run.cancel(body.value.reason));
  });

  app.openapi(retry, async (c) => {
    const run = stubFor(c);
    if (!run) return notFound(c);
    const body = await optionalBody(c, RetrySchema);
    if ('error' in body) return jsonError(c, 'invalid_request', body.error);
    return control(c, await run.retry(body.value.step_id));
  });
}

/** How `readValue`'s refusals map onto the API's codes. */
const VALUE_REFUSALS: Record<string, 'not_found' | 'invalid_request' | 'value_too_large'> = {
  run_not_found: 'not_found',
  value_not_found: 'not_found',
  invalid_request: 'invalid_request',
  value_too_large: 'value_too_large',
};

function route<Q extends z.ZodObject>(
  operationId: string,
  path: string,
  summary: string,
  schema: z.ZodType,
  query?: Q,
  extraErrors: readonly 422[] = [],
) {
  return createRoute({
    method: 'get',
    path,
    tags,
    operationId,
    summary,
    security: V1_SECURITY,
    request: { params: RunIdParamSchema, query: query ?? (z.object({}) as unknown as Q) },
    responses: {
      200: { description: summary, content: { 'application/json': { schema } } },
      ...errorResponses(400, 401, 404, ...extraErrors),
    },
  });
}
