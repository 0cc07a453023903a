/**
 * `/v1/runs` (SPEC §6): start runs, read them (snapshot, plan.status, events, replayed state), cancel
 * and retry them, and list them from the D1 index; following them live over WebSocket is run-socket.ts.
 */
import { withGoalPlanning } from '../goal-planning';
import { createRoute, z } from '@hono/zod-openapi';
import { errorResponses, V1_BODY_ERRORS, V1_SECURITY } from '../openapi';
import { jsonError } from '../errors';
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
import type { App } from '../types';
import type { RpcResult } from '../../durable/plan-run';
import { parseRunConfig } from '../../plan/config';

import { control, controlRoute, notFound, optionalBody, pastLastEvent, stubFor, tags } from '../run-helpers';
import { registerRunSocketRoute } from './run-socket';

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
      return pastLastEvent(
        c,
        { after: q.after },
        now.last_seq,
        "pass a seq of this run's (next_after from its last page, or its last_seq), or 0 for all",
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
      return pastLastEvent(
        c,
        { at },
        snap.last_seq,
        "pass a seq of this run's (its last_seq, or a seq from its events), or leave at out for its state now",
      );
    return c.json(snap, 200);
  });

  registerRunSocketRoute(app);

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
