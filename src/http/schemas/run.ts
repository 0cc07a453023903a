/** Request and response schemas of the `/v1/runs` routes. */
import { z } from '@hono/zod-openapi';
import { RunConfigInputSchema } from './config';
import { IMPORT_FIELDS } from './import';
import { PlanFieldSchema } from './plan';
import { ListedRunStatusSchema, RunStatusSchema } from './run-views';
import { GoalSchema, PLANNING_OPTION_FIELDS } from './planning';
import { strictObject } from './strict-object';
import { wholeNumber } from './whole-number';
import { DEFAULT_WAIT_S, MAX_WAIT_S, WAIT_UNTIL } from '../wait-condition';

export const RunIdParamSchema = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: 'run_3f9c0a1b2c3d4e5f' }),
});

/**
 * The planning options of `POST /v1/plans`, accepted beside `goal` (SPEC §8); they become
 * `config.planning` (and `config.require_fallbacks`), so the first plan and every revision use them.
 */
export const GOAL_PLANNING_FIELDS = {
  ...PLANNING_OPTION_FIELDS,
  planning_model: z.string().min(1).max(200).optional().openapi({ description: 'Seed-000 name for model' }),
  require_fallbacks: z
    .boolean()
    .optional()
    .openapi({ description: 'Every step must name a fallback_action' }),
  structured_output: z
    .boolean()
    .optional()
    .openapi({ description: 'false: ask the model for plain text, for servers without JSON modes' }),
};

export const CreateRunSchema = strictObject({
  goal: GoalSchema.optional().openapi({ description: 'Plan this goal with the configured planner' }),
  plan: PlanFieldSchema.optional(),
  ...IMPORT_FIELDS,
  config: RunConfigInputSchema.optional().openapi({ description: 'Run configuration (SPEC §4)' }),
  input: z.unknown().optional().openapi({ description: 'The run input, read by `{{ input.… }}`' }),
  ...GOAL_PLANNING_FIELDS,
}).openapi('CreateRun');

export const RunLinksSchema = z.object({ self: z.string(), events: z.string(), ws: z.string() });

/**
 * The request headers of `POST /v1/runs`, as documented. Read loosely (any string): the route parses
 * the key itself (http/idempotency-key.ts), so a bad one is `invalid_idempotency_key`, not a schema error.
 */
export const IdempotencyHeadersSchema = z.object({
  'idempotency-key': z
    .string()
    .optional()
    .openapi({
      description:
        'Makes the request safe to retry: 1–255 printable ASCII characters (a UUID v4, say), plain or as a ' +
        'quoted Structured Field string; the same key and body answer the same run.',
      example: '8e03978e-40d5-43e8-bc93-6894a57f9326',
    }),
});

export const CreatedRunSchema = z
  .object({ run_id: z.string(), status: RunStatusSchema, links: RunLinksSchema })
  .openapi('CreatedRun');

const flag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => (v === undefined ? undefined : v === 'true' || v === '1' || v === ''));

export const StatusQuerySchema = z.object({ include_details: flag, include_completed: flag });

export const DeleteRunQuerySchema = z.object({
  force: flag.openapi({
    description:
      'Delete a run this release cannot read (`run_unreadable`) without reading it; a readable run is deleted as without it',
  }),
});

const seq = wholeNumber(z.number().int().min(0));

export const EventsQuerySchema = z.object({
  after: seq.default(0).openapi({
    description: "Only events with a greater seq; one past the run's last event is 400 (`details.last_seq`)",
  }),
  limit: wholeNumber(z.number().int().min(1).max(1000)).default(500),
});

export const WsQuerySchema = z.object({
  after: seq.optional().openapi({
    description:
      "Send the events after this seq first (default 0: all); one past the run's last event is 400 (`details.last_seq`)",
  }),
});

export const WaitQuerySchema = z.object({
  until: z.enum(WAIT_UNTIL).default('terminal').openapi({
    description:
      '`terminal`: until the run ended (completed, failed, aborted, cancelled); `waiting`: until it waits for a person (awaiting_approval, awaiting_input) or ended; `any_change`: until it records an event after `after`, or ended',
  }),
  timeout_s: wholeNumber(z.number().int().min(1).max(MAX_WAIT_S))
    .default(DEFAULT_WAIT_S)
    .openapi({
      description: `How long to wait at most, in seconds (1–${MAX_WAIT_S}); the run is answered then with \`timed_out: true\``,
    }),
  after: seq.optional().openapi({
    description:
      '`any_change`: the seq to count new events from (a previous answer’s `run.last_seq`, so nothing between two waits is missed); default: the run’s last event when the wait begins. A seq past the run’s last event is 400 (`details.last_seq`)',
  }),
});

export const ValuesQuerySchema = z.object({
  ref: z.string().min(1).max(2000).openapi({
    description: 'A reference, as in a plan: `steps.fetch.output.items[0]`, `state.x`, `final_output`',
  }),
});

export const StateQuerySchema = z.object({
  at: wholeNumber(z.number().int().min(1)).optional().openapi({
    description:
      'Replay up to this seq (events are numbered from 1); a seq past the run’s last event is 400 (`details.last_seq`)',
  }),
});

export const ListRunsQuerySchema = z.object({
  status: ListedRunStatusSchema.optional(),
  limit: wholeNumber(z.number().int().min(1).max(200)).default(50),
  cursor: z.string().optional(),
  parent_run_id: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: 'Only the child runs this run’s steps started (sub-plans, agent.dispatch)' }),
  top_level: flag.openapi({
    description:
      'true: only runs no step started (leaves child runs out). Child runs whose index row predates ' +
      'migration 0007 are listed as top-level until their run is next read',
  }),
});

export const CancelSchema = strictObject({ reason: z.string().max(1000).optional() }).openapi('CancelRun');
export const RetrySchema = strictObject({ step_id: z.string().optional() }).openapi('RetryRun');
