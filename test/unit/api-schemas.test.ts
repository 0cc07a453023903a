/**
 * The OpenAPI document's schemas against the types the code uses: a field added to an event, the
 * snapshot, plan.status, a diff or the run list without its schema is a compile error here (tsc runs
 * in `npm test`), and the runtime checks below parse real values with them.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from '@hono/zod-openapi';
import type { EventPayloads, EventType } from '../../src/engine/events';
import type { RunSnapshot } from '../../src/engine/snapshot';
import type { PlanStatusView } from '../../src/engine/status-view';
import type { PlanDiff } from '../../src/plan/diff';
import type { Estimates } from '../../src/plan/estimates';
import type { PlanVersionRow } from '../../src/durable/plan-versions';
import type { EventsPage } from '../../src/durable/run-reads';
import type { ParentFields } from '../../src/durable/run-parent';
import type { PendingApproval } from '../../src/durable/pending-approval';
import type { PendingApprovalSchema } from '../../src/http/schemas/approval-changes';
import { EVENT_PAYLOAD_SCHEMAS, RunEventSchema } from '../../src/http/schemas/events';
import type {
  EventsPageSchema,
  PlanDiffSchema,
  PlanStatusSchema,
  PlanVersionRowSchema,
} from '../../src/http/schemas/run-views';
import { RunSnapshotSchema } from '../../src/http/schemas/run-views';
import type { EstimatesSchema } from '../../src/http/schemas/validation';

type Out<S extends z.ZodType> = z.output<S>;
/** An intersection as one object type. */
type Flat<T> = { [K in keyof T]: T[K] };
/** What the schema describes, with the plan left as the model's type (the schema's is recursive). */
type WithoutPlan<T> = T extends object ? Omit<T, 'plan' | 'step' | 'config' | 'added'> : T;
type Payload<K extends EventType> = WithoutPlan<EventPayloads[K]>;
type SchemaPayload<K extends EventType> = WithoutPlan<Out<(typeof EVENT_PAYLOAD_SCHEMAS)[K]>>;

describe('API schemas match the code’s types', () => {
  it('every event payload', () => {
    expectTypeOf<SchemaPayload<'RunCreated'>>().toEqualTypeOf<Payload<'RunCreated'>>();
    expectTypeOf<SchemaPayload<'PlanAuthored'>>().toEqualTypeOf<Payload<'PlanAuthored'>>();
    expectTypeOf<SchemaPayload<'PlanValidated'>>().toEqualTypeOf<Payload<'PlanValidated'>>();
    expectTypeOf<SchemaPayload<'ApprovalRequested'>>().toEqualTypeOf<Payload<'ApprovalRequested'>>();
    expectTypeOf<SchemaPayload<'ApprovalGranted'>>().toEqualTypeOf<Payload<'ApprovalGranted'>>();
    expectTypeOf<SchemaPayload<'ApprovalRejected'>>().toEqualTypeOf<Payload<'ApprovalRejected'>>();
    expectTypeOf<SchemaPayload<'ApprovalWebhookAttempted'>>().toEqualTypeOf<
      Payload<'ApprovalWebhookAttempted'>
    >();
    expectTypeOf<SchemaPayload<'PlanUpdated'>>().toEqualTypeOf<Payload<'PlanUpdated'>>();
    expectTypeOf<SchemaPayload<'StepStreamed'>>().toEqualTypeOf<Payload<'StepStreamed'>>();
    expectTypeOf<SchemaPayload<'RevisionRequested'>>().toEqualTypeOf<Payload<'RevisionRequested'>>();
    expectTypeOf<SchemaPayload<'InputRequested'>>().toEqualTypeOf<Payload<'InputRequested'>>();
    expectTypeOf<SchemaPayload<'StepScheduled'>>().toEqualTypeOf<Payload<'StepScheduled'>>();
    expectTypeOf<SchemaPayload<'ToolInvoked'>>().toEqualTypeOf<Payload<'ToolInvoked'>>();
    expectTypeOf<SchemaPayload<'ToolReturned'>>().toEqualTypeOf<Payload<'ToolReturned'>>();
    expectTypeOf<SchemaPayload<'StepRetried'>>().toEqualTypeOf<Payload<'StepRetried'>>();
    expectTypeOf<SchemaPayload<'StepFailed'>>().toEqualTypeOf<Payload<'StepFailed'>>();
    expectTypeOf<SchemaPayload<'StepSkipped'>>().toEqualTypeOf<Payload<'StepSkipped'>>();
    expectTypeOf<SchemaPayload<'RunResumed'>>().toEqualTypeOf<Payload<'RunResumed'>>();
    expectTypeOf<SchemaPayload<'NodeEntered'>>().toEqualTypeOf<Payload<'NodeEntered'>>();
    expectTypeOf<SchemaPayload<'ReflectionAdded'>>().toEqualTypeOf<Payload<'ReflectionAdded'>>();
    expectTypeOf<SchemaPayload<'ReflectionRequested'>>().toEqualTypeOf<Payload<'ReflectionRequested'>>();
    expectTypeOf<SchemaPayload<'ThoughtAdded'>>().toEqualTypeOf<Payload<'ThoughtAdded'>>();
    expectTypeOf<SchemaPayload<'StageStarted'>>().toEqualTypeOf<Payload<'StageStarted'>>();
    expectTypeOf<SchemaPayload<'StageCompleted'>>().toEqualTypeOf<Payload<'StageCompleted'>>();
    expectTypeOf<SchemaPayload<'InputReceived'>>().toEqualTypeOf<Payload<'InputReceived'>>();
    expectTypeOf<SchemaPayload<'RunTerminated'>>().toEqualTypeOf<Payload<'RunTerminated'>>();
    // Every event type has a schema, and no schema names a type the engine lacks.
    expectTypeOf<keyof typeof EVENT_PAYLOAD_SCHEMAS>().toEqualTypeOf<EventType>();
    expect(Object.keys(EVENT_PAYLOAD_SCHEMAS).length).toBeGreaterThan(20);
  });

  it('the snapshot, plan.status, estimates, versions and diffs', () => {
    // As the object serves them: the engine's views with the run's parent (run-parent.ts) beside.
    expectTypeOf<
      Omit<Out<typeof RunSnapshotSchema>, 'plan' | 'step_results' | 'state' | 'final_output'>
    >().toEqualTypeOf<
      Flat<
        Omit<RunSnapshot, 'plan' | 'step_results' | 'state' | 'final_output'> &
          ParentFields & { pending_approval: PendingApproval | null }
      >
    >();
    expectTypeOf<Out<typeof PendingApprovalSchema>>().toEqualTypeOf<PendingApproval>();
    expectTypeOf<Omit<Out<typeof PlanStatusSchema>, 'status'>>().toEqualTypeOf<
      Flat<Omit<PlanStatusView, 'status'> & ParentFields>
    >();
    expectTypeOf<Flat<Out<typeof PlanStatusSchema>['status']>>().toEqualTypeOf<
      Flat<PlanStatusView['status']>
    >();
    expectTypeOf<Out<typeof EstimatesSchema>>().toEqualTypeOf<Estimates>();
    expectTypeOf<Out<typeof PlanVersionRowSchema>>().toEqualTypeOf<PlanVersionRow>();
    expectTypeOf<Omit<Out<typeof PlanDiffSchema>, 'added'>>().toEqualTypeOf<Omit<PlanDiff, 'added'>>();
    expectTypeOf<Omit<Out<typeof EventsPageSchema>, 'events'>>().toEqualTypeOf<Omit<EventsPage, 'events'>>();
    expect(RunSnapshotSchema.safeParse({}).success).toBe(false);
  });

  it('parses a real event and refuses one with the wrong payload for its type', () => {
    const envelope = {
      event_id: 'evt_1',
      seq: 3,
      timestamp: '2026-11-24T10:00:00.000Z',
      actor: 'engine',
      references: { plan_id: 'p', plan_version: 1, step_id: 'a' },
    };
    const ok = RunEventSchema.safeParse({
      ...envelope,
      event_type: 'StepSkipped',
      payload: { step_id: 'a', reason: 'when_false' },
    });
    expect(ok.success).toBe(true);
    const wrong = RunEventSchema.safeParse({
      ...envelope,
      event_type: 'StepSkipped',
      payload: { step_id: 'a', reason: 'because' },
    });
    expect(wrong.success).toBe(false);
  });
});
