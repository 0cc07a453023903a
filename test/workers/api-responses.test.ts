/**
 * Every documented answer is what the API sends (#12): real runs through the Worker, each JSON answer
 * parsed with the schema the OpenAPI document is generated from, and nothing in it the schema leaves
 * out (parsing strips unknown keys, so the parsed value must equal the original).
 */
import { describe, expect, it } from 'vitest';
import type { z } from '@hono/zod-openapi';
import { ValidationResponseSchema } from '../../src/http/schemas/validation';
import { CreatedRunSchema } from '../../src/http/schemas/run';
import { ToolListSchema } from '../../src/http/schemas/tool';
import {
  ControlResultSchema,
  DryRunSchema,
  EventsPageSchema,
  PlanDiffSchema,
  PlanStatusSchema,
  PlanVersionListSchema,
  PlanVersionSchema,
  RunPageSchema,
  RunSnapshotSchema,
  ValueSchema,
} from '../../src/http/schemas/run-views';
import { api, waitForRun } from './helpers';

/** The body, parsed with `schema`, unchanged by parsing: no field undocumented, none mistyped. */
function documented(schema: z.ZodType, r: { status: number; body: unknown }, status = 200) {
  expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(status);
  const parsed = schema.safeParse(r.body);
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  expect(parsed.data).toEqual(r.body);
}

const plan = {
  goal: 'fan out and join',
  steps: [
    { id: 'a', action: 'demo.echo', parameters: { value: 1 } },
    { id: 'b', action: 'demo.echo', parameters: { value: '{{ steps.a.output }}' } },
    { id: 'c', action: 'demo.echo', parameters: { value: 3 }, dependencies: ['a'] },
    { id: 'join', action: 'demo.echo', parameters: { b: '{{ steps.b.output }}' }, dependencies: ['c'] },
  ],
};

describe('documented responses', () => {
  it('a run from start to finish: created, snapshot, status, events, state, value, list', async () => {
    const created = await api('POST', '/v1/runs', { plan, config: { execution_mode: 'parallel' } });
    documented(CreatedRunSchema, created, 201);
    const id = created.body.run_id as string;
    await waitForRun(id);
    documented(RunSnapshotSchema, await api('GET', `/v1/runs/${id}`));
    documented(PlanStatusSchema, await api('GET', `/v1/runs/${id}/status?include_details=true`));
    const page = await api('GET', `/v1/runs/${id}/events?limit=1000`);
    documented(EventsPageSchema, page);
    expect((page.body.events as unknown[]).length).toBeGreaterThan(10);
    documented(RunSnapshotSchema, await api('GET', `/v1/runs/${id}/state?at=5`));
    documented(ValueSchema, await api('GET', `/v1/runs/${id}/values?ref=steps.a.output`));
    documented(RunPageSchema, await api('GET', '/v1/runs?limit=5'));
    documented(PlanVersionListSchema, await api('GET', `/v1/runs/${id}/plans`));
    documented(PlanVersionSchema, await api('GET', `/v1/runs/${id}/plans/1`));
  });

  it('approval with an edit, a diff of the two versions, cancel, and a failed run’s retry', async () => {
    const created = await api('POST', '/v1/runs', { plan, config: { require_plan_approval: true } });
    const id = created.body.run_id as string;
    await waitForRun(id, (r) => r.status === 'awaiting_approval');
    const modified = await api('POST', `/v1/runs/${id}/approval`, {
      decision: 'modify',
      edits: [{ op: 'remove_step', step_id: 'join' }],
    });
    documented(ControlResultSchema, modified);
    await waitForRun(id);
    documented(PlanDiffSchema, await api('GET', `/v1/runs/${id}/plans/1/diff/2`));

    const slow = await api('POST', '/v1/runs', {
      plan: { goal: 'wait', steps: [{ id: 's', action: 'demo.sleep', parameters: { ms: 5000 } }] },
    });
    documented(ControlResultSchema, await api('POST', `/v1/runs/${slow.body.run_id as string}/cancel`, {}));

    const failing = await api('POST', '/v1/runs', {
      plan: { goal: 'fail', steps: [{ id: 'f', action: 'demo.flaky', parameters: { fail_times: 5 } }] },
      config: { retry_failed_steps: 0 },
    });
    const failed = failing.body.run_id as string;
    await waitForRun(failed);
    documented(ControlResultSchema, await api('POST', `/v1/runs/${failed}/retry`, {}));
  });

  it('a dry run, a validation, and the tools', async () => {
    documented(DryRunSchema, await api('POST', '/v1/runs', { plan, config: { mode: 'lazy' } }));
    documented(ValidationResponseSchema, await api('POST', '/v1/plans/validate', { plan }));
    documented(ToolListSchema, await api('GET', '/v1/tools'));
  });
});
