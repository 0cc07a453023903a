/**
 * Response schemas of the `/v1/runs` routes: the run snapshot, `plan.status`, the run list, the
 * answer to a control request, plan versions and their diff. The engine's and the API's types are the
 * source; test/unit/api-schemas.test.ts fails when these drift from them.
 */
import { z } from '@hono/zod-openapi';
import { SKIP_REASONS } from '../../engine/events';
import { RunStatus, StepStatus } from '../../plan/model';
import { PendingApprovalSchema } from './approval-changes';
import { ErrorInfoSchema, RunEventSchema, RunLimitSchema } from './events';
import { PlanSchema, PlanStepSchema } from './plan';
import { EstimatesSchema, FindingSchema } from './validation';

export const RunStatusSchema = z.enum(RunStatus).openapi('RunStatus');
/** The statuses `GET /v1/runs` filters by: a run's, and `rejected`. */
export const ListedRunStatusSchema = z
  .enum({ ...RunStatus, rejected: 'rejected' })
  .openapi('ListedRunStatus', {
    description:
      'A run status, or `rejected`: the runs whose plan was rejected (by an approver or its approval ' +
      'deadline) — listed as `cancelled` with `termination_reason: "plan_rejected"`, and among ' +
      '`status=cancelled` too',
  });
export const StepStatusSchema = z.enum(StepStatus).openapi('StepStatus');

/** Where a value too large for this answer is read: `GET /v1/runs/:id/values?ref=`. */
export const ElidedValueSchema = z
  .object({
    $elided: z.object({
      bytes: z.number().int(),
      ref: z.string().openapi({ example: 'steps.fetch.output' }),
      href: z.string().openapi({ example: '/v1/runs/run_x/values?ref=steps.fetch.output' }),
    }),
  })
  .openapi('ElidedValue', {
    description: 'A value left out of this answer for its size; `href` reads it',
  });

const TerminationReasonSchema = z
  .string()
  .nullable()
  .openapi({
    description:
      'Why an ended run ended: `success`, `steps_failed`, `step_failed`, `plan_rejected` (an approver ' +
      'rejected the plan, or its approval deadline rejected it), `user_abort`, a cancel’s own reason, …; ' +
      'null until it ends (and again after a retry resumes it)',
  });

/** A child run's parent (src/durable/run-parent.ts), in the run, its status and its list row. */
const PARENT_FIELDS = {
  parent_run_id: z.string().nullable().openapi({
    description:
      'The run whose step started this one (a sub-plan, agent.dispatch, plan.execute); null for a run no step started',
  }),
  parent_step_id: z
    .string()
    .nullable()
    .openapi({ description: 'The step of `parent_run_id` that started this run; null with it' }),
};

const CountsSchema = z
  .object({
    total: z.number().int(),
    pending: z.number().int(),
    blocked: z.number().int(),
    running: z.number().int().openapi({
      description: 'Steps the run is running now: none once the run has ended (see `interrupted`)',
    }),
    completed: z.number().int(),
    failed: z.number().int(),
    skipped: z.number().int(),
    interrupted: z.number().int().openapi({
      description:
        'Steps that were running when the run ended (cancelled, failed, aborted; StepDetail.interrupted): their status stays `running`, but they are counted here, not in `running`. The counts other than `total` add up to it',
    }),
  })
  .openapi({ description: 'Steps by status' });

export const StepDetailSchema = z
  .object({
    status: StepStatusSchema,
    attempts: z.number().int(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    latency_ms: z.number().nullable(),
    // A union, not .nullable(): that would make the ErrorInfo component itself nullable.
    error: z.union([ErrorInfoSchema, z.null()]),
    skip_reason: z
      .string()
      .nullable()
      .openapi({ description: `One of ${SKIP_REASONS.join(', ')}` }),
    interrupted: z.boolean().openapi({
      description:
        'The run ended (cancelled, failed, aborted) while this step was running: the run no longer waits for it, though its tool may have gone on. Its status stays `running` until an outcome that comes later completes or fails it; a retry does not re-run it meanwhile',
    }),
    retry_at: z.string().optional().openapi({
      description:
        'While the step waits for a retry: when its next attempt starts (ISO 8601) — the backoff, or longer when its tool’s service asked (`error.retry_after_ms`)',
    }),
    inferred_dependencies: z
      .array(z.string())
      .optional()
      .openapi({ description: 'Dependencies the step’s references add to the ones it lists' }),
  })
  .openapi('StepDetail');

export const RunSnapshotSchema = z
  .object({
    run_id: z.string(),
    status: RunStatusSchema,
    goal: z.string(),
    plan: z.union([PlanSchema, ElidedValueSchema]).nullable(),
    plan_version: z.number().int().nullable(),
    step_statuses: z.record(z.string(), StepStatusSchema),
    step_results: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'Output of every completed step (an ElidedValue when too large)' }),
    steps: z.record(z.string(), StepDetailSchema),
    state: z.record(z.string(), z.unknown()).openapi({ description: 'State variables (output_path)' }),
    counts: CountsSchema,
    progress: z.number().openapi({ description: 'Settled steps / all steps, 0–1' }),
    revision_count: z.number().int(),
    token_usage: z.object({
      prompt_tokens: z.number(),
      completion_tokens: z.number(),
      total_tokens: z.number(),
    }),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
    execution_time: z.number().nullable().openapi({ description: 'Seconds from start to end' }),
    final_output: z.unknown(),
    error: ErrorInfoSchema.optional(),
    termination_reason: TerminationReasonSchema,
    // A union, not .nullable(): that would make the RunLimit component itself nullable.
    limit_reached: z.union([RunLimitSchema, z.null()]).openapi({
      description:
        'An iterative run whose turns a limit (max_steps) stopped before its model said it was done — it ends `success`, its steps completed; null otherwise',
    }),
    last_seq: z.number().int(),
    ...PARENT_FIELDS,
    // null unless the run is `awaiting_approval` (a union: `.nullable()` would make the component nullable)
    pending_approval: z.union([PendingApprovalSchema, z.null()]),
  })
  .openapi('Run');

export const RunWaitSchema = z
  .object({
    timed_out: z.boolean().openapi({
      description: 'true: the time was up before the run got where it was waited for; `run` is how it is now',
    }),
    run: RunSnapshotSchema,
  })
  .openapi('RunWait');

export const SubtaskSchema = z
  .object({
    id: z.string(),
    description: z.string(),
    action: z.string(),
    dependencies: z.array(z.string()),
    status: z.union([StepStatusSchema, z.literal('in_progress')]),
    interrupted: z.boolean().openapi({
      description: 'The run ended while this subtask was in progress (see StepDetail.interrupted)',
    }),
    result: z.unknown(),
    error: z.string().optional(),
  })
  .openapi('Subtask');

export const PlanStatusSchema = z
  .object({
    status: CountsSchema.extend({ in_progress: z.number().int() }),
    progress: z.number(),
    plan_id: z.string().nullable(),
    plan_version: z.number().int().nullable(),
    goal: z.string(),
    run_status: RunStatusSchema,
    subtasks: z.array(SubtaskSchema).optional().openapi({ description: 'With include_details' }),
    success: z.boolean(),
    ...PARENT_FIELDS,
  })
  .openapi('PlanStatus');

export const EventsPageSchema = z
  .object({
    events: z.array(RunEventSchema),
    next_after: z.number().int().openapi({ description: 'The `after` of the next page' }),
    has_more: z.boolean().openapi({ description: 'More events follow this page' }),
  })
  .openapi('EventsPage');

export const RunSummarySchema = z
  .object({
    run_id: z.string(),
    status: RunStatusSchema,
    goal: z.string().openapi({
      description: 'At most 10,000 characters, ending in `…` when cut (`GET /v1/runs/:id` has it whole)',
    }),
    plan_id: z.string().nullable(),
    plan_version: z.number().int().nullable(),
    step_count: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
    completed_at: z.string().nullable(),
    termination_reason: TerminationReasonSchema,
    parent_run_id: PARENT_FIELDS.parent_run_id.openapi({
      description:
        'The run whose step started this one; null for a run no step started, and for a child run ' +
        'whose index row predates migration 0007 until its run is next read',
    }),
    parent_step_id: PARENT_FIELDS.parent_step_id,
  })
  .openapi('RunSummary');

export const RunPageSchema = z
  .object({
    runs: z.array(RunSummarySchema),
    next_cursor: z.string().nullable().openapi({ description: 'Pass as `cursor` for the next page' }),
  })
  .openapi('RunPage');

export const ControlResultSchema = z
  .object({
    run_id: z.string(),
    status: RunStatusSchema,
    plan_version: z.number().int().optional().openapi({ description: 'rollback: the new version' }),
  })
  .openapi('ControlResult', { description: 'The run’s status after the request' });

export const DeletedRunSchema = z
  .object({
    run_id: z.string(),
    child_runs: z
      .array(z.string())
      .openapi({ description: 'The child runs (agent.dispatch, sub-plans) deleted with it, at any depth' }),
  })
  .openapi('DeletedRun', { description: 'The run and everything stored for it are deleted' });

export const DryRunSchema = z
  .object({
    mode: z.literal('lazy'),
    valid: z.boolean(),
    errors: z.array(FindingSchema),
    plan: PlanSchema.optional(),
    estimates: z.union([EstimatesSchema, z.null()]).optional(),
  })
  .openapi('DryRun');

export const ValueSchema = z.object({ ref: z.string(), value: z.unknown() }).openapi('RunValue');

export const PlanVersionRowSchema = z
  .object({
    version: z.number().int(),
    plan_id: z.string(),
    reason: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('PlanVersionSummary');

export const PlanVersionListSchema = z
  .object({ run_id: z.string(), versions: z.array(PlanVersionRowSchema) })
  .openapi('PlanVersionList');

export const PlanVersionSchema = z
  .intersection(
    PlanSchema,
    z.object({
      inferred_dependencies: z
        .record(z.string(), z.array(z.string()))
        .openapi({ description: 'Step id → dependencies its references add to the ones it lists' }),
    }),
  )
  .openapi('PlanVersion');

const FieldChangeSchema = z.object({ from: z.unknown(), to: z.unknown() });

export const PlanDiffSchema = z
  .object({
    from_version: z.number().int(),
    to_version: z.number().int(),
    fields: z.object({
      goal: FieldChangeSchema.optional(),
      success_criteria: FieldChangeSchema.optional(),
      strategy: FieldChangeSchema.optional(),
    }),
    added: z.array(PlanStepSchema).openapi({ description: 'Steps only in the new version' }),
    removed: z.array(z.string()).openapi({ description: 'Ids of steps only in the old version' }),
    changed: z.array(
      z.object({
        step_id: z.string(),
        fields: z.record(z.string(), FieldChangeSchema),
        dependencies_added: z.array(z.string()),
        dependencies_removed: z.array(z.string()),
      }),
    ),
    reordered: z.boolean(),
  })
  .openapi('PlanDiff');
