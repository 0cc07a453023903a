/**
 * An approver's changed plan, sent to a run whose object had gone (its plan read back from storage,
 * where a step's fields come in its schema's order): only the step the approver changed is a new
 * version's step — the others keep their idempotency keys, as they do with the object still there.
 */
import { abortAllDurableObjects } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { api, events, startRun, waitForRun, type Json } from './helpers';

describe('an approval edit after the run’s object was evicted', () => {
  it('changes only the edited step: the others keep their keys', async () => {
    const runId = await startRun(
      {
        goal: 'restock',
        steps: [
          { id: 'check', action: 'demo.echo', parameters: { sku: 'WID-1' } },
          { id: 'ticket', action: 'demo.echo', parameters: { priority: 'normal' }, dependencies: ['check'] },
        ],
      },
      { require_plan_approval: true, execution_mode: 'sequential' },
    );
    await waitForRun(runId, (r) => r.status === 'awaiting_approval');
    await abortAllDurableObjects();
    // What `edgeplan plans <id> --show 1` prints, edited and sent back (`approve --edit`).
    const plan = (await api('GET', `/v1/runs/${runId}/plans/1`)).body as { steps: Json[] };
    const ticket = plan.steps[1]!;
    ticket.parameters = { priority: 'high' };
    const decided = await api('POST', `/v1/runs/${runId}/approval`, {
      decision: 'modify',
      plan,
      comment: 'high',
    });
    expect(decided.status).toBe(200);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    const all = await events(runId);
    const updated = all.find((e) => e.event_type === 'PlanUpdated') as {
      payload: { changed_steps: string[] };
    };
    expect(updated.payload.changed_steps).toEqual(['ticket']);
    const keys = all
      .filter((e) => e.event_type === 'ToolInvoked')
      .map((e) => (e.payload as { step_id: string; idempotency_key: string }).idempotency_key);
    expect(keys).toEqual([`${runId}:check`, `${runId}:ticket:v2`]);
  });
});
