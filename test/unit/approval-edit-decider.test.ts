/**
 * Who made an approver's edit, as the run view keeps it with the version (`edited_by`) and editedText
 * says it once a revision's decision is the run's last: from `PlanUpdated`'s own `approver` /
 * `approver_via`, or — an edit recorded before those keys — from the `ApprovalGranted` right after it,
 * which made it. An edit whose events name no one names no one (never the revision's decider).
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/client';
import { applyEvent, emptyView, type RunView } from '../../src/client/run-view';
import { editedText } from '../../src/client/replaced-text';
import { runEventBuilder } from './run-event-builder';

const step = (id: string, parameters = {}) => ({ id, action: 'demo.echo', dependencies: [], parameters });
const plan = (version: number, steps: ReturnType<typeof step>[]) => ({ id: 'p', version, goal: 'g', steps });

/** v1 edited into v2 with `edit` (the PlanUpdated's extra keys) and granted with `grant`; v3 approved by Grace. */
function editedThenRevised(edit: object, grant: object): RunView {
  const ev = runEventBuilder();
  const events: RunEvent[] = [
    ev('RunCreated', { run_id: 'run_1', goal: 'g', config: {}, input: null }),
    ev('PlanAuthored', { plan: plan(1, [step('a')]) }),
    ev('ApprovalRequested', { deadline_at: null, plan_version: 1 }),
    ev(
      'PlanUpdated',
      {
        plan: plan(2, [step('a', { edited: true })]),
        reason: 'modified by the approver',
        kind: 'approval_edit',
        changed_steps: ['a'],
        ...edit,
      },
      2,
    ),
    ev('ApprovalGranted', { by: 'approver', ...grant }, 2),
    ev('RunStarted', {}, 2),
    ev(
      'PlanUpdated',
      {
        plan: plan(3, [step('a', { edited: true }), step('b')]),
        reason: 'step failed',
        kind: 'revision',
        changed_steps: ['b'],
      },
      3,
    ),
    ev('ApprovalRequested', { deadline_at: null, plan_version: 3 }, 3),
    ev('ApprovalGranted', { by: 'approver', approver: 'Grace', approver_via: 'link' }, 3),
  ];
  const view = emptyView('run_1');
  for (const e of events) applyEvent(view, e);
  return view;
}

describe('the decider of an approver’s edit', () => {
  it('is named from the edit’s own event, not from the revision’s decision', () => {
    const view = editedThenRevised({ approver: 'Ada', approver_via: 'token' }, { approver: 'Someone else' });
    expect(view.versions.find((v) => v.kind === 'approval_edit')?.edited_by).toEqual({
      approver: 'Ada',
      approver_via: 'token',
    });
    expect(editedText(view)).toBe(
      'edited into v2 when approved by “Ada” (given with the API token): changed a',
    );
  });

  it('is named, for an edit recorded before it was kept, from the decision that made it', () => {
    const view = editedThenRevised({}, { approver: 'Ada', approver_via: 'access' });
    expect(editedText(view)).toBe('edited into v2 when approved by Ada (verified by Access): changed a');
  });

  it('says how an unnamed edit came, and names no one when its events do not say', () => {
    expect(editedText(editedThenRevised({ approver_via: 'link' }, {}))).toBe(
      'edited into v2 when approved from the approval link: changed a',
    );
    expect(editedText(editedThenRevised({}, {}))).toBe('edited into v2 when approved: changed a');
  });
});
