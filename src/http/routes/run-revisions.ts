/**
 * How a run's plan changes while it runs (SPEC §6): approval, new information, user-requested
 * revisions, and the plan versions — list, read, diff, roll back.
 */
import { inferredDependencies } from '../../plan/inferred-dependencies';
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { INVALID_TOKEN_MESSAGE, isApprovalTokenShaped } from '../../approval/tokens';
import type { RpcResult } from '../../durable/plan-run';
import type { RunStatus } from '../../plan/model';
import { getPlanVersion, listPlanVersions } from '../../durable/plan-versions';
import { diffPlans } from '../../plan/diff';
import { signedInApprover } from '../access/signed-in-approver';
import { decisionVersion } from '../decision-version';
import { runInputOf } from '../run-input-body';
import { jsonError } from '../errors';
import { requireBody } from '../middleware/require-body';
import { errorResponses, V1_SECURITY } from '../openapi';
import { control, controlRoute, notFound, optionalBody, stubFor, tags } from '../run-helpers';
import { PlanSchema, PlanStepSchema } from '../schemas/plan';
import { RunIdParamSchema } from '../schemas/run';
import { strictObject } from '../schemas/strict-object';
import { wholeNumber } from '../schemas/whole-number';
import { PlanDiffSchema, PlanVersionListSchema, PlanVersionSchema } from '../schemas/run-views';
import type { App, AppEnv } from '../types';
import { echoed } from '../echoed';

/** Who decides or answers, as a body names them (checked for one line where it is recorded). */
const approverField = (description: string) =>
  z.string().max(120).optional().openapi({ description, example: 'Ada Lovelace' });

const InputSchema = z
  .object({
    input: z.unknown().optional(),
    step_id: z.string().optional().openapi({
      description:
        'With `input`: the step whose question this answers. Refused 409 (`details.reason: input_not_awaited`) unless the run waits on that step — so a second answer is not taken as new information; without `input`, or with another key beside `input`, `step_id` and `approver`, 400',
    }),
    question_seq: z
      .number()
      .int()
      .min(1)
      .optional()
      .openapi({
        description:
          'With `input`: the question this answers — the `seq` of the InputRequested event that asked it (the last one while the run is `awaiting_input`). ' +
          'Refused 409 `question_closed` unless the run asks that question still, saying what became of it (answered, and by whom; the question the step asks now): ' +
          'a slow second answer to a failed step’s question does not answer the question the step asks after the retry the first answer chose. ' +
          'Without it, an answer is taken for whatever question the run asks when it arrives. Send it with `step_id`: a service from before it refuses it there (400, unknown key) — send the answer again without it — but would take a body with it and no `step_id` whole, as the input',
      }),
    approver: approverField(
      'Who answers, recorded on InputReceived as `answered_by` (one line, 1–120 characters; never part of the input), ' +
        'with `answered_by_via` saying how the name was established (`token`, `anonymous` or `access`). ' +
        'As on an approval decision, a label, not authentication — except behind Cloudflare Access (ACCESS_TEAM_DOMAIN, ' +
        'ACCESS_AUD), where a signed-in caller’s verified identity is recorded whether or not this is sent, and another ' +
        'name is refused (400 approver_mismatch)',
    ),
  })
  .catchall(z.unknown())
  .openapi('RunInput', {
    description:
      'New information, or the answer the run waits for. `{input: …}`, `{input: …, step_id: …}` (an answer to that step only), `{input: …, step_id: …, question_seq: …}` (an answer to that question only), or any object (the input whole); each with an optional `approver`. The answer to a `human.input` step whose question gave a `schema` must fit it: another is 400 `invalid_request` (`details.reason: answer_does_not_fit`, `details.issues`), and the step keeps waiting.',
  });

const ReplanSchema = strictObject({ reason: z.string().min(1).max(2000) }).openapi('ReplanRequest');
const RollbackSchema = strictObject({ version: z.number().int().positive() }).openapi('RollbackRequest');
const version = wholeNumber(z.number().int().positive());
/** The edit operations as documented (the run parses them with PlanEditSchema, src/approval/edits.ts). */
const PlanEditDocSchema = z
  .discriminatedUnion('op', [
    z.strictObject({
      op: z.literal('update_step'),
      step_id: z.string(),
      changes: z.record(z.string(), z.unknown()).openapi({ description: 'Step fields to change (not `id`)' }),
    }),
    z.strictObject({ op: z.literal('remove_step'), step_id: z.string() }),
    z.strictObject({
      op: z.literal('add_step'),
      step: PlanStepSchema,
      after: z.string().optional().openapi({ description: 'Insert after this step (default: at the end)' }),
    }),
    z.strictObject({ op: z.literal('move_step'), step_id: z.string(), to_index: z.number().int().min(0) }),
    z.strictObject({
      op: z.literal('set_dependencies'),
      step_id: z.string(),
      dependencies: z.array(z.string()),
    }),
  ])
  .openapi('PlanEdit');

/**
 * The approval body as documented. The run parses requests with ApprovalDecisionSchema (after the
 * link's token); its edit operations embed the recursive step schema, which the OpenAPI generator
 * cannot walk. Closed like the schemas the run parses with (an unknown key is refused), so the
 * document — and `approve_run`'s arguments at /mcp, taken from it — say so.
 */
export const ApprovalDocSchema = z
  .strictObject({
    decision: z.enum(['approve', 'reject', 'modify']),
    comment: z.string().optional(),
    approver: approverField(
      'The decider’s name, recorded on ApprovalGranted / ApprovalRejected as given (one line, 1–120 ' +
        'characters). A label for the history, not authentication: whoever holds the token or link can send any name. ' +
        'Behind Cloudflare Access (ACCESS_TEAM_DOMAIN, ACCESS_AUD) a signed-in caller’s verified identity is recorded ' +
        'instead; another name is refused (400 approver_mismatch). `approver_via` beside it on the event says which: ' +
        '`access` (verified), `token` (an API token holder stated it), `link` (typed on the approval link) or `anonymous`',
    ),
    plan: PlanSchema.optional().openapi({ description: 'modify: the whole new plan' }),
    edits: z.array(PlanEditDocSchema).optional().openapi({
      description: 'modify: edit operations on the current plan, applied in order',
    }),
    plan_version: z
      .number()
      .int()
      .min(1)
      .optional()
      .openapi({
        description:
          'The plan version the decider looked at (`pending_approval.plan_version`). When the run now awaits ' +
          'another — a rollback replaced it, or a revision came to await approval meanwhile — the decision is refused (409 conflict, ' +
          '`details.reason: "plan_version_changed"`, with the `plan_version` it awaits) and the link is not ' +
          'spent. Without it the decision is on whatever version awaits approval when it arrives',
      }),
  })
  .openapi('ApprovalDecision');

const APPROVAL_NEEDS =
  '{"decision": "approve" | "reject" | "modify"}; "modify" takes a whole "plan" or a list of "edits"; "comment" and "approver" (your name) are optional';
const { middleware: _served, ...approval } = controlRoute(
  'decideApproval',
  '/v1/runs/{id}/approval',
  'Approve, reject or modify the plan of a run awaiting approval (bearer token, or ?token= from the approval link)',
  ApprovalDocSchema,
  APPROVAL_NEEDS,
);
/** What an approval link gets when its token cannot be this run's: the answer to a wrong token. */
const INVALID_LINK: RpcResult<never> = {
  ok: false,
  error: { code: 'forbidden', message: INVALID_TOKEN_MESSAGE },
};
const input = controlRoute(
  'sendRunInput',
  '/v1/runs/{id}/input',
  'New information, or the answer to ask_user / human.input',
  InputSchema,
  '{"input": …}: the answer or the new information (an object without "input" is taken as it whole); "approver" (your name) is optional',
);
const replan = controlRoute(
  'replanRun',
  '/v1/runs/{id}/replan',
  'Ask for a revision of the rest of the plan',
  ReplanSchema,
  '{"reason": "…"}: why the rest of the plan should be revised',
);
const rollback = controlRoute(
  'rollbackRun',
  '/v1/runs/{id}/rollback',
  'A new version equal to an earlier one; completed work is kept',
  RollbackSchema,
  '{"version": N}: the plan version to go back to',
);

const listPlans = createRoute({
  method: 'get',
  path: '/v1/runs/{id}/plans',
  tags,
  operationId: 'listPlanVersions',
  summary: 'Every plan version the run has had',
  security: V1_SECURITY,
  request: { params: RunIdParamSchema },
  responses: {
    200: {
      description: 'Versions, oldest first; none while the plan is being made or when planning failed',
      content: { 'application/json': { schema: PlanVersionListSchema } },
    },
    ...errorResponses(401, 404),
  },
});
const getPlan = createRoute({
  method: 'get',
  path: '/v1/runs/{id}/plans/{version}',
  tags,
  operationId: 'getPlanVersion',
  summary: 'One plan version',
  description:
    'The plan as recorded, plus `inferred_dependencies`: step id → the dependencies its references add ' +
    'to the ones it lists (steps with none left out).',
  security: V1_SECURITY,
  request: { params: RunIdParamSchema.extend({ version }) },
  responses: {
    200: { description: 'The plan', content: { 'application/json': { schema: PlanVersionSchema } } },
    ...errorResponses(400, 401, 404),
  },
});
const diff = createRoute({
  method: 'get',
  path: '/v1/runs/{id}/plans/{a}/diff/{b}',
  tags,
  operationId: 'diffPlanVersions',
  summary: 'Step-level diff between two versions: added, removed, changed fields, dependency changes',
  security: V1_SECURITY,
  request: { params: RunIdParamSchema.extend({ a: version, b: version }) },
  responses: {
    200: { description: 'The diff', content: { 'application/json': { schema: PlanDiffSchema } } },
    ...errorResponses(400, 401, 404),
  },
});

export function registerRunRevisionRoutes(app: App): void {
  // Documented, but served by a plain handler: with the link's token, the run checks the token
  // before anything looks at the body, so no schema may validate it first. The body is JSON, not
  // empty and not too deep (the app's middleware); the run parses it (ApprovalDecisionSchema).
  app.openAPIRegistry.registerPath(approval);
  app.post('/v1/runs/:id/approval', requireBody(APPROVAL_NEEDS), async (c) => {
    const token = c.req.query('token');
    // A link's token that no link carries is refused before the run's object is woken.
    if (token !== undefined && !isApprovalTokenShaped(token)) return control(c, INVALID_LINK);
    const run = stubFor(c);
    if (!run) return token === undefined ? notFound(c) : control(c, INVALID_LINK);
    const decision = signedInApprover(await c.req.json(), c.get('caller'));
    if (!decision.ok) return jsonError(c, 'approver_mismatch', decision.message);
    const { body, planVersion } = decisionVersion(decision.body);
    const r = (await run.approve(body, token, c.get('caller').via, planVersion)) as RpcResult<{
      status: RunStatus;
    }>;
    // No run behind the id: to a link, the same answer as a wrong token.
    return control(c, token !== undefined && !r.ok && r.error.code === 'run_not_found' ? INVALID_LINK : r);
  });

  app.openapi(input, async (c) => {
    const run = stubFor(c);
    if (!run) return notFound(c);
    const body = await optionalBody(c, InputSchema);
    if ('error' in body) return jsonError(c, 'invalid_request', body.error);
    const sent = runInputOf(body.value, c.get('caller'));
    if ('code' in sent) return jsonError(c, sent.code, sent.message);
    // How the caller was let in: recorded beside who answered, and the object's sign that approver was
    // read out of the body here (an older Worker hands such a body over whole).
    // The question it answers as an argument of its own: an object of the release before ignores it
    // and takes the answer unchecked, as it took every one (its body parser would refuse the key).
    return control(
      c,
      await run.input(sent.input, sent.step_id, sent.answered_by, c.get('caller').via, sent.question_seq),
    );
  });

  app.openapi(replan, async (c) => {
    const run = stubFor(c);
    if (!run) return notFound(c);
    const body = await optionalBody(c, ReplanSchema);
    if ('error' in body) return jsonError(c, 'invalid_request', body.error);
    return control(c, await run.replan(body.value.reason));
  });

  app.openapi(rollback, async (c) => {
    const run = stubFor(c);
    if (!run) return notFound(c);
    const body = await optionalBody(c, RollbackSchema);
    if ('error' in body) return jsonError(c, 'invalid_request', body.error);
    return control(c, await run.rollback(body.value.version));
  });

  app.openapi(listPlans, async (c) => {
    const id = c.req.valid('param').id;
    // An empty list for a run with no plan yet (planning, or planning failed); 404 for no run.
    const versions = stubFor(c) ? await listPlanVersions(c.env, id) : null;
    return versions ? c.json({ run_id: id, versions }, 200) : notFound(c);
  });

  app.openapi(getPlan, async (c) => {
    const { id, version: v } = c.req.valid('param');
    if (!stubFor(c)) return notFound(c);
    const plan = await getPlanVersion(c.env, id, v);
    if (!plan) return noPlanVersion(c, id, v);
    return c.json({ ...plan, inferred_dependencies: inferredDependencies(plan.steps) }, 200);
  });

  app.openapi(diff, async (c) => {
    const { id, a, b } = c.req.valid('param');
    if (!stubFor(c)) return notFound(c);
    const [pa, pb] = await Promise.all([getPlanVersion(c.env, id, a), getPlanVersion(c.env, id, b)]);
    if (!pa || !pb) return noPlanVersion(c, id, !pa ? a : b);
    return c.json(diffPlans(pa, pb), 200);
  });
}

/**
 * The 404 for a plan version a run lacks: `No run` when there is no run (a mistyped id read as "has
 * no plan version 1", as if the run existed), else the versions it has.
 */
async function noPlanVersion(c: Context<AppEnv>, id: string, v: number) {
  const versions = await listPlanVersions(c.env, id);
  if (!versions) return notFound(c);
  const has =
    versions.length === 0
      ? 'it has no plan yet'
      : `its versions: ${versions.map((r) => r.version).join(', ')}`;
  return jsonError(c, 'not_found', `Run "${echoed(id)}" has no plan version ${v} (${has})`);
}
