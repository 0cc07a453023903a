/** Shared pieces of the `/v1/runs/:id/…` routes: the run's stub, not-found, control results, bodies. */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { RpcResult } from '../durable/plan-run';
import { runObject, type RunObject } from '../durable/run-object';
import type { ErrorCode as AnyErrorCode } from '../error-codes';
import { RUN_ID_PATTERN, type RunStatus } from '../plan/model';
import { jsonError, type ErrorCode } from './errors';
import { requireBody } from './middleware/require-body';
import { errorResponses, V1_BODY_ERRORS, V1_SECURITY } from './openapi';
import { RunIdParamSchema } from './schemas/run';
import { ControlResultSchema } from './schemas/run-views';
import type { AppEnv } from './types';
import { echoed } from './echoed';
import { issuesText } from '../issue-text';

export const anyJson = { 'application/json': { schema: z.unknown() } };
export const tags = ['runs'];

/**
 * A POST on one run with a JSON body: optional, or required when `needs` says what to send (an empty
 * body is then `400 invalid_request` with that text; see {@link requireBody}).
 */
export function controlRoute(
  operationId: string,
  path: string,
  summary: string,
  schema: z.ZodType,
  needs?: string,
) {
  return createRoute({
    method: 'post',
    path,
    tags,
    operationId,
    summary,
    security: V1_SECURITY,
    ...(needs === undefined ? {} : { middleware: [requireBody(needs)] }),
    request: {
      params: RunIdParamSchema,
      body: { required: needs !== undefined, content: { 'application/json': { schema } } },
    },
    responses: {
      200: {
        description: 'The run’s new status',
        content: { 'application/json': { schema: ControlResultSchema } },
      },
      ...errorResponses(...V1_BODY_ERRORS, 403, 404, 409, 410, 422),
    },
  });
}

/** The run's object, or null for an id that cannot name a run. */
export function stubFor(c: Context<AppEnv>): RunObject | null {
  const id = c.req.param('id') ?? '';
  return RUN_ID_PATTERN.test(id) ? runObject(c.env.PLAN_RUN, id) : null;
}

/**
 * `400 invalid_request` for a seq the run never had — `seq` (`{after}` or `{at}`) past its last event,
 * `lastSeq` — then `hint`: what to pass instead. Its details hold both seqs.
 * @example return pastLastEvent(c, { after: 12 }, 7, "pass a seq of this run's, or 0 for all");
 */
export function pastLastEvent(
  c: Context<AppEnv>,
  seq: { after: number } | { at: number },
  lastSeq: number,
  hint: string,
) {
  const [[name, value]] = Object.entries(seq) as [[string, number]];
  return jsonError(
    c,
    'invalid_request',
    `${name} ${value} is past the last event of run "${echoed(c.req.param('id') ?? '')}" (seq ${lastSeq}): ${hint}`,
    { ...seq, last_seq: lastSeq },
  );
}

export function notFound(c: Context<AppEnv>) {
  return jsonError(c, 'not_found', `No run "${echoed(c.req.param('id') ?? '')}"`);
}

/** The codes a control request answers with (and so the statuses its route documents). */
type ControlRefusal = Extract<
  ErrorCode,
  | 'not_found'
  | 'invalid_plan'
  | 'invalid_request'
  | 'planning_unavailable'
  | 'forbidden'
  | 'gone'
  | 'approval_link_superseded'
  | 'question_closed'
  | 'conflict'
>;

/** How the run object's refusal codes map onto the API's. */
const REFUSALS: Partial<Record<AnyErrorCode, ControlRefusal>> = {
  run_not_found: 'not_found',
  unknown_step: 'not_found',
  not_found: 'not_found',
  invalid_plan: 'invalid_plan',
  invalid_request: 'invalid_request',
  planning_unavailable: 'planning_unavailable',
  forbidden: 'forbidden',
  gone: 'gone',
  approval_link_superseded: 'approval_link_superseded',
  question_closed: 'question_closed',
};

export function control<T extends { status: RunStatus }>(c: Context<AppEnv>, r: RpcResult<T>) {
  if (r.ok) return c.json({ run_id: c.req.param('id') ?? '', ...r.value }, 200);
  // Worded as every route words an unknown run.
  if (r.error.code === 'run_not_found') return notFound(c);
  const code: ControlRefusal = REFUSALS[r.error.code] ?? 'conflict';
  // The refusal's own code is the reason, unless its details name a more precise one.
  const details =
    r.error.details === undefined
      ? { reason: r.error.code }
      : { reason: r.error.code, ...(r.error.details as object) };
  return jsonError(c, code, r.error.message, details);
}

/** Parses an optional JSON body (already checked to be JSON by the app's middleware). */
export async function optionalBody<T>(
  c: Context<AppEnv>,
  schema: z.ZodType<T>,
): Promise<{ value: T } | { error: string }> {
  const text = await c.req.text();
  const parsed = schema.safeParse(text.trim() === '' ? {} : JSON.parse(text));
  if (parsed.success) return { value: parsed.data };
  return {
    error: issuesText(parsed.error.issues),
  };
}
