/**
 * What an approver is shown about the plan version they decide on (src/plan/approval-changes.ts,
 * src/durable/pending-approval.ts): in `GET /v1/runs/:id` as `pending_approval`, and beside the plan in
 * the approval webhook and the approval link's page.
 */
import { z } from '@hono/zod-openapi';

const FieldChangeSchema = z.object({ from: z.unknown(), to: z.unknown() });

export const RevisionCauseSchema = z
  .object({
    plan_version: z.number().int(),
    kind: z.string().openapi({ description: '`revision`, `turn`, `rollback` or `approval_edit`' }),
    reason: z.string().openapi({ description: 'Why: the failure, the `/replan` reason, the turn' }),
    trigger: z.string().nullable().openapi({
      description: 'What asked for it: `step_failure`, `user_request`, `next_turn`, …; null when nothing did',
    }),
    step_id: z.string().nullable().openapi({ description: 'The step whose failure or result triggered it' }),
  })
  .openapi('RevisionCause');

export const ApprovalChangesSchema = z
  .object({
    since_version: z.number().int().openapi({ description: 'The last version an approval granted' }),
    plan_version: z.number().int().openapi({ description: 'The version awaiting approval' }),
    summary: z.string().openapi({ example: 'v2 adds 2 steps and changes 1 since v1 was approved' }),
    counts: z.object({ added: z.number().int(), changed: z.number().int(), removed: z.number().int() }),
    added: z.array(
      z.object({
        step_id: z.string(),
        action: z.string(),
        description: z.string(),
        dependencies: z.array(z.string()),
      }),
    ),
    changed: z.array(
      z.object({
        step_id: z.string(),
        action: z.string().openapi({ description: 'Its action in the new version' }),
        fields: z
          .record(z.string(), FieldChangeSchema)
          .openapi({ description: 'Every changed field, old and new value (absent: null)' }),
        parameters: z
          .array(z.string())
          .openapi({ description: 'Top-level parameter keys whose value changed, was added or removed' }),
        dependencies_added: z.array(z.string()),
        dependencies_removed: z.array(z.string()),
      }),
    ),
    removed: z.array(z.object({ step_id: z.string(), action: z.string(), description: z.string() })),
    plan_fields: z
      .record(z.string(), FieldChangeSchema)
      .openapi({ description: 'Changed plan-level fields (goal, success_criteria, strategy)' }),
    revisions: z
      .array(RevisionCauseSchema)
      .openapi({ description: 'The versions written since the approved one, oldest first, and why' }),
  })
  .openapi('ApprovalChanges', {
    description: 'What a plan version awaiting approval changes since the last approved version',
  });

export const PendingApprovalSchema = z
  .object({
    plan_version: z.number().int(),
    deadline_at: z
      .string()
      .nullable()
      .openapi({ description: 'ISO-8601: when `default_action` applies if nobody decides first' }),
    default_action: z.enum(['approve', 'reject']).openapi({
      description:
        "What happens at `deadline_at` if nobody decides first (the run's `approval.default_action`): `reject` ends the run, `approve` lets it go on",
    }),
    last_approved_version: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'The last version an approval granted; null while none was' }),
    // What `plan_version` changes since `last_approved_version`; null when that is null. (A union, not
    // `.nullable()`: that would make the named component itself nullable.)
    changes: z.union([ApprovalChangesSchema, z.null()]),
  })
  .openapi('PendingApproval', {
    description: 'The approval the run waits for (null unless its status is `awaiting_approval`)',
  });
