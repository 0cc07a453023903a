/**
 * Run events as the OpenAPI document shows them (SPEC §5): the seed-002 envelope with one payload
 * schema per `event_type`, a discriminated union (`RunEvent`). The engine's types
 * (src/engine/events.ts) are the source; test/unit/api-schemas.test.ts fails when these drift from them.
 */
import { z } from '@hono/zod-openapi';
import { NAME_SOURCES, SKIP_REASONS, type EventType } from '../../engine/events';
import { RunConfigSchema } from '../../plan/config';
import { RunStatus } from '../../plan/model';
import { PlanSchema, PlanStepSchema } from './plan';
import { EstimatesSchema } from './validation';

export const ErrorInfoSchema = z
  .object({
    code: z.string().openapi({ example: 'timeout' }),
    message: z.string(),
    retryable: z.boolean(),
    details: z
      .unknown()
      .optional()
      .openapi({ description: 'More about it; a failed planning: `{planning_trace}`, every attempt' }),
    retry_after_ms: z.number().int().min(0).optional().openapi({
      description:
        "How long the tool's service asked to be left alone (a 429's or 503's `Retry-After`): a retry waits at least that long",
    }),
  })
  .openapi('ErrorInfo');

const TokenCountSchema = z.object({
  prompt: z.number(),
  completion: z.number(),
  estimated: z.literal(true).optional().openapi({
    description: 'Not reported by the server (a stream cut off): estimated as 4 characters a token',
  }),
});
export const RunLimitSchema = z
  .object({
    setting: z.literal('max_steps'),
    value: z.number().int(),
    turns: z.number().int(),
    message: z.string(),
  })
  .openapi('RunLimit', {
    description:
      'A limit that stopped an iterative run’s turns before its model said it was done: the setting, its value, the turns taken, and what happened in words',
  });

const ms = z.number().openapi({ description: 'Epoch milliseconds' });
const planRef = PlanSchema.openapi({ description: 'The plan' });
const APPROVER_NAME = z.string().optional().openapi({
  description:
    'Who decided: behind Cloudflare Access the signed-in identity (verified), else the name the decider gave, as given (a label, not checked)',
});

/** How the name beside it was established; absent on events recorded before it was (show those as before). */
const nameSource = (what: string) =>
  z
    .enum(NAME_SOURCES)
    .optional()
    .openapi({
      description:
        `How ${what} was established: \`access\` — the identity Cloudflare Access verified (the only verified one); ` +
        '`token` — stated by a caller holding the API token (an API call, /mcp, the CLI, the dashboard without Access); ' +
        '`link` — typed by whoever opened the approval link; `anonymous` — stated to an API open without a token ' +
        '(ALLOW_ANONYMOUS). Present with the name; absent on events recorded before it was added',
    });

/** One payload schema per event type; `satisfies` makes a new event type a compile error here. */
const PAYLOADS = {
  RunCreated: z.object({
    run_id: z.string(),
    goal: z.string(),
    config: RunConfigSchema,
    input: z.unknown(),
    state: z.record(z.string(), z.unknown()).optional(),
  }),
  PlanAuthored: z.object({ plan: planRef, tokens: TokenCountSchema.optional() }),
  PlanValidated: z.object({ valid: z.literal(true), estimates: z.union([EstimatesSchema, z.null()]) }),
  RunStarted: z.object({}),
  ApprovalRequested: z.object({ deadline_at: ms.nullable(), plan_version: z.number().int() }),
  ApprovalGranted: z.object({
    comment: z.string().optional(),
    by: z.enum(['approver', 'timeout']),
    approver: APPROVER_NAME,
    approver_via: nameSource('`approver`'),
  }),
  ApprovalRejected: z.object({
    comment: z.string().optional(),
    by: z.enum(['approver', 'timeout']),
    approver: APPROVER_NAME,
    approver_via: nameSource('`approver`'),
  }),
  ApprovalWebhookAttempted: z.object({
    attempt: z.number().int(),
    ok: z.boolean(),
    status: z.number().int().optional(),
    error: z.string().optional(),
    next_attempt_at: ms.nullable(),
  }),
  PlanUpdated: z.object({
    plan: planRef,
    reason: z.string(),
    kind: z.enum(['revision', 'approval_edit', 'rollback', 'turn']),
    changed_steps: z.array(z.string()),
    tokens: TokenCountSchema.optional(),
    approver: APPROVER_NAME.openapi({
      description:
        'An `approval_edit`: who made the edit, as on the `ApprovalGranted` that follows it (behind Cloudflare Access the signed-in identity, else the name the decider gave). Absent on other kinds, and on edits recorded before it was added',
    }),
    approver_via: nameSource('`approver` (or, without it, how the edit came)'),
  }),
  StepStreamed: z.object({ step: PlanStepSchema, plan_id: z.string() }),
  RevisionRequested: z.object({
    trigger: z.enum([
      'step_failure',
      'unexpected_result',
      'new_information',
      'user_request',
      'token_budget',
      'failure_rate',
      'next_turn',
    ]),
    reason: z.string(),
    step_id: z.string().optional(),
    strategy: z.string(),
    deferred: z.boolean().optional(),
  }),
  InputRequested: z.object({
    reason: z.string(),
    step_id: z.string().optional(),
    prompt: z.string().optional(),
    schema: z
      .unknown()
      .optional()
      .describe(
        "The JSON Schema the human.input step's answer must fit (its `schema` parameter); an answer that does not is refused 400",
      ),
    deadline: z
      .string()
      .optional()
      .describe(
        "A human.input step's question: ISO 8601, when it is due — the instant its attempt times out unanswered (the step's `timeout_ms`, else a day). Absent for an ask_user question (no limit) and on events recorded before it was",
      ),
    if_unanswered: z
      .enum(['asked_again', 'falls_back', 'step_fails'])
      .optional()
      .describe(
        'What happens at `deadline` if nobody answers: the step is retried and asks again (`asked_again`), its `fallback_action` runs (`falls_back`), or it fails and its `on_failure` applies (`step_fails`)',
      ),
    retries_left: z
      .number()
      .int()
      .optional()
      .describe('The step’s retries left when it asked (a timeout uses one to ask again)'),
  }),
  StepScheduled: z.object({
    step_id: z.string(),
    attempt: z.number().int(),
    action: z.string(),
    fallback: z.boolean(),
    dispatch: z.enum(['queue', 'inline']),
    deadline_at: ms,
  }),
  ToolInvoked: z.object({
    step_id: z.string(),
    attempt: z.number().int(),
    tool: z.string(),
    parameters: z.record(z.string(), z.unknown()),
    idempotency_key: z.string(),
    deadline_at: ms.optional(),
    limit_ms: z
      .number()
      .int()
      .optional()
      .openapi({ description: "The tool's own time limit that moved deadline_at (ms)" }),
  }),
  ToolReturned: z.object({
    step_id: z.string(),
    attempt: z.number().int(),
    success: z.boolean(),
    output: z.unknown().optional(),
    error: ErrorInfoSchema.optional(),
    latency_ms: z.number(),
    tokens: TokenCountSchema.optional(),
    cached: z.boolean().optional(),
    schema_findings: z.array(z.string()).optional(),
    after_run_ended: z.literal(true).optional(),
  }),
  StepRedispatched: z.object({
    step_id: z.string(),
    attempt: z.number().int(),
    action: z.string(),
    fallback: z.boolean(),
    dispatch: z.literal('inline'),
    deadline_at: ms,
    waited_ms: z.number(),
    error: ErrorInfoSchema,
  }),
  StepRetried: z.object({
    step_id: z.string(),
    attempt: z.number().int(),
    retry_at: ms,
    delay_ms: z.number(),
    error: ErrorInfoSchema,
  }),
  StepFailed: z.object({ step_id: z.string(), error: ErrorInfoSchema, handled: z.boolean() }),
  StepSkipped: z.object({ step_id: z.string(), reason: z.enum(SKIP_REASONS), detail: z.string().optional() }),
  RunResumed: z.object({ step_ids: z.array(z.string()) }),
  NodeEntered: z.object({
    node: z.string(),
    from: z.string().nullable(),
    visit: z.number().int(),
    rule: z.string().optional(),
  }),
  ReflectionAdded: z.object({
    step_id: z.string().optional(),
    reflection: z.string(),
    exit_criteria_met: z.boolean().optional(),
    tokens: TokenCountSchema.optional(),
  }),
  ReflectionRequested: z.object({ step_id: z.string(), expected: z.string() }),
  ThoughtAdded: z.object({
    turn: z.number().int(),
    thought: z.string(),
    step_id: z.string().optional(),
    action: z.string().optional(),
    dropped: z.array(z.string()).optional(),
  }),
  StageStarted: z.object({
    stage: z.string(),
    from: z.string().optional(),
    rule: z.string().optional(),
    rewind: z.boolean().optional(),
  }),
  StageCompleted: z.object({ stage: z.string(), output: z.unknown().optional() }),
  InputReceived: z.object({
    input: z.unknown(),
    step_id: z.string().optional(),
    answered_by: z.string().optional().openapi({
      description:
        'Who sent the input: behind Cloudflare Access the signed-in identity (verified), else the name the caller gave as `approver` (a label, not checked); absent when neither said',
    }),
    answered_by_via: nameSource('`answered_by`'),
  }),
  RunTerminated: z.object({
    status: z.enum([RunStatus.completed, RunStatus.failed, RunStatus.aborted, RunStatus.cancelled]),
    reason: z.string(),
    final_output: z.unknown().optional(),
    error: ErrorInfoSchema.optional(),
    tokens: TokenCountSchema.optional(),
    limit: RunLimitSchema.optional(),
  }),
} satisfies Record<EventType, z.ZodType>;

/** The payload schema of each event type (tests check them against the engine's types). */
export const EVENT_PAYLOAD_SCHEMAS = PAYLOADS;

export const EventReferencesSchema = z
  .object({
    plan_id: z.string().nullable(),
    plan_version: z.number().int().nullable(),
    step_id: z.string().optional(),
    prompt_version: z.string().optional(),
    tool_version: z.string().optional(),
  })
  .openapi('EventReferences');

/** An event whose payload was too large to send: the values are read with `/values?ref=`. */
const ElidedPayloadSchema = z.object({ $elided: z.object({ bytes: z.number(), reason: z.string() }) });

function eventSchema<K extends EventType>(type: K) {
  return z
    .object({
      event_id: z.string(),
      seq: z.number().int().openapi({ description: 'Gap-free per run, from 1' }),
      event_type: z.literal(type),
      timestamp: z.string().openapi({ description: 'ISO 8601' }),
      actor: z.string(),
      references: EventReferencesSchema,
      payload: PAYLOADS[type],
    })
    .openapi(`${type}Event`);
}

const TYPES = Object.keys(PAYLOADS) as EventType[];
const [first, ...rest] = TYPES.map(eventSchema);

/** A run event: a discriminated union on `event_type`. */
export const RunEventSchema = z.discriminatedUnion('event_type', [first!, ...rest]).openapi('RunEvent', {
  description:
    'One event of a run (SPEC §5), discriminated by `event_type`. An event too large to send has ' +
    '`payload: {$elided: {bytes, reason}}` instead; its values are read with `/values?ref=`.',
});

export { ElidedPayloadSchema };
