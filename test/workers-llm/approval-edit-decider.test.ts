/**
 * Who made an approver's edit stays with its version (`PlanUpdated.approver`, `approver_via`): with
 * `approval.revisions: "ask"`, once a revision's decision is the run's last, the run's history still
 * names the first decider for the edit — in the events the API serves, and in the words the dashboard's
 * approval note and `edgeplan show` build from them (editedText, decisionLines).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyEvent, editedText, emptyView, type RunEvent } from '../../src/client';
import { decisionLines } from '../../src/cli/render';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { describedEcho as echo } from '../fixtures/echo-steps';
import { api, events, startRun, waitForRun, type Json } from '../workers/helpers';

afterEach(() => setLlmFetch(null));

describe('the decider of an approver’s edit', () => {
  it('is recorded with the edited version and named once a revision was approved by another', async () => {
    setLlmFetch(scriptedLlm([JSON.stringify({ steps: [echo('a'), echo('fixed', ['a'])] })]).fetch);
    const flaky = {
      id: 'flaky',
      action: 'demo.flaky',
      parameters: { fail_times: 99, key: `edit-decider-${crypto.randomUUID()}`, permanent: true },
      dependencies: ['a'],
    };
    const runId = await startRun(
      { goal: 'a, then flaky', steps: [echo('a'), flaky] },
      {
        require_plan_approval: true,
        approval: { revisions: 'ask', timeout_s: 600 },
        on_step_failure: 'replan',
        retry_failed_steps: 0,
      },
    );
    await waitForRun(runId, (r) => r.status === 'awaiting_approval');
    // Ada approves v1 with an edit (v2: a's parameters); flaky fails, the planner writes v3.
    const edited = { goal: 'a, then flaky', steps: [echo('a', [], { id: 'a', edited: true }), flaky] };
    const modify = { decision: 'modify', plan: edited, approver: 'Ada Lovelace' };
    expect((await api('POST', `/v1/runs/${runId}/approval`, modify)).status).toBe(200);
    await waitForRun(runId, (r) => r.status === 'awaiting_approval' && r.plan_version === 3);
    const grace = { decision: 'approve', approver: 'Grace Hopper' };
    expect((await api('POST', `/v1/runs/${runId}/approval`, grace)).status).toBe(200);
    expect((await waitForRun(runId)).status).toBe('completed');

    const log = await events(runId);
    const updates = log.filter((e) => e.event_type === 'PlanUpdated').map((e) => e.payload as Json);
    expect(updates.map((p) => [p.kind, p.approver, p.approver_via])).toEqual([
      ['approval_edit', 'Ada Lovelace', 'anonymous'],
      ['revision', undefined, undefined],
    ]);
    const view = emptyView(runId);
    for (const e of log) applyEvent(view, e as RunEvent);
    expect(view.approval).toMatchObject({ approver: 'Grace Hopper', revision: true });
    const edit = 'edited into v2 when approved by “Ada Lovelace” (given without signing in): changed a';
    expect(editedText(view)).toBe(edit);
    expect(decisionLines(view)).toEqual([
      'plan v3 approved by “Grace Hopper” (given without signing in)',
      edit,
    ]);
  });
});
