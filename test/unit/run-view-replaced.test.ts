/**
 * The run view keeps the steps later plan versions replaced: a step a revision removed, and the
 * failed incarnation of a step a revision runs again, each with its attempts, its error, the version
 * it ran under and the version that replaced it and why — while `steps` stays the current plan.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/client';
import { applyEvent, emptyView, type RunView } from '../../src/client/run-view';
import { approvedVersion } from '../../src/client/replaced-text';
import { eventTime, runEventBuilder } from './run-event-builder';

let ev = runEventBuilder();

const step = (id: string, action: string, dependencies: string[] = [], parameters = {}) => ({
  id,
  action,
  dependencies,
  parameters,
});
const plan = (version: number, steps: ReturnType<typeof step>[]) => ({ id: 'p', version, goal: 'g', steps });
const invoked = (id: string, attempt: number, v: number, ms: number) =>
  ev(
    'ToolInvoked',
    { step_id: id, attempt, tool: 'demo.flaky', parameters: {}, idempotency_key: `run_1:${id}` },
    v,
    ms,
  );
const failed = (id: string, attempt: number, v: number, ms: number) =>
  ev(
    'ToolReturned',
    {
      step_id: id,
      attempt,
      success: false,
      latency_ms: 5,
      error: { code: 'demo_flaky', message: `attempt ${attempt} failed`, retryable: true },
    },
    v,
    ms,
  );
const ok = (id: string, attempt: number, v: number, ms: number) =>
  ev('ToolReturned', { step_id: id, attempt, success: true, output: 'done', latency_ms: 5 }, v, ms);

function fold(events: RunEvent[]): RunView {
  const view = emptyView('run_1');
  for (const e of events) applyEvent(view, e);
  return view;
}

function failedThenRevised(v2: ReturnType<typeof plan>, reason: string): RunView {
  ev = runEventBuilder();
  return fold([
    ev('RunCreated', { run_id: 'run_1', goal: 'g', config: {}, input: null }),
    ev('PlanAuthored', { plan: plan(1, [step('fetch', 'demo.flaky'), step('use', 'demo.echo', ['fetch'])]) }),
    ev('RunStarted', {}),
    invoked('fetch', 1, 1, 10),
    failed('fetch', 1, 1, 20),
    invoked('fetch', 2, 1, 30),
    failed('fetch', 2, 1, 40),
    ev('StepFailed', {
      step_id: 'fetch',
      error: { code: 'demo_flaky', message: 'attempt 2 failed', retryable: false },
      handled: false,
    }),
    ev('StepSkipped', { step_id: 'use', reason: 'dependency_failed' }),
    ev('PlanUpdated', { plan: v2, reason, kind: 'revision', changed_steps: ['fetch'] }, 2, 50),
  ]);
}

describe('replaced steps in the run view', () => {
  it('keeps a step a revision removed, with its attempts, error and who replaced it, out of the current plan', () => {
    const view = failedThenRevised(
      plan(2, [step('fetch_mirror', 'demo.echo'), step('use', 'demo.echo', ['fetch_mirror'])]),
      'step fetch failed: attempt 2 failed',
    );
    expect(view.steps.map((s) => s.id)).toEqual(['fetch_mirror', 'use']);
    expect(view.replaced.map((r) => [r.id, r.status, r.change, r.plan_version])).toEqual([
      ['fetch', 'failed', 'removed', 1],
    ]);
    const [fetch] = view.replaced;
    expect(fetch?.replaced_by).toEqual({
      version: 2,
      kind: 'revision',
      reason: 'step fetch failed: attempt 2 failed',
    });
    expect(fetch?.history.map((a) => [a.attempt, a.success, a.plan_version, a.error?.code])).toEqual([
      [1, false, 1, 'demo_flaky'],
      [2, false, 1, 'demo_flaky'],
    ]);
    expect(fetch?.error).toBe('attempt 2 failed');
    // The step skipped because of the failure waits again under the new plan, as the run has it.
    expect(view.steps.find((s) => s.id === 'use')?.status).toBe('pending');
  });

  it('keeps the failed incarnation of a step a revision runs again, and starts its current entry over', () => {
    const view = failedThenRevised(
      plan(2, [step('fetch', 'demo.flaky', [], { fail_times: 0 }), step('use', 'demo.echo', ['fetch'])]),
      'retry fetch with no failures',
    );
    expect(view.replaced.map((r) => [r.id, r.change, r.history.length])).toEqual([['fetch', 'rerun', 2]]);
    const current = view.steps.find((s) => s.id === 'fetch');
    expect([current?.status, current?.history.length, current?.error]).toEqual(['pending', 0, null]);
    applyEvent(view, invoked('fetch', 3, 2, 60));
    applyEvent(view, ok('fetch', 3, 2, 70));
    expect(view.steps.find((s) => s.id === 'fetch')?.history.map((a) => [a.attempt, a.plan_version])).toEqual(
      [[3, 2]],
    );
    expect(view.steps.find((s) => s.id === 'fetch')?.status).toBe('completed');
    // The replaced incarnation is untouched by the new version's attempts.
    expect(view.replaced[0]?.history).toHaveLength(2);
    expect(view.replaced[0]?.status).toBe('failed');
  });

  it('keeps completed and never-run steps a revision keeps as they are, and replaces nothing on an approval edit of unrun steps it keeps', () => {
    ev = runEventBuilder();
    const v1 = plan(1, [step('a', 'demo.echo'), step('b', 'demo.echo', ['a'])]);
    const view = fold([
      ev('RunCreated', { run_id: 'run_1', goal: 'g', config: {}, input: null }),
      ev('PlanAuthored', { plan: v1 }),
      ev('ApprovalRequested', { deadline_at: null, plan_version: 1 }),
      ev(
        'PlanUpdated',
        {
          plan: plan(2, [step('a', 'demo.echo', [], { x: 1 }), step('b', 'demo.echo', ['a'])]),
          reason: 'set x',
          kind: 'approval_edit',
          changed_steps: ['a'],
        },
        2,
      ),
    ]);
    expect(view.replaced).toEqual([]);
    expect(view.steps.map((s) => [s.id, s.status])).toEqual([
      ['a', 'pending'],
      ['b', 'pending'],
    ]);
  });

  it('keeps a step an approver removed, with the approver’s comment as the reason', () => {
    ev = runEventBuilder();
    const view = fold([
      ev('RunCreated', { run_id: 'run_1', goal: 'g', config: {}, input: null }),
      ev('PlanAuthored', { plan: plan(1, [step('a', 'demo.echo'), step('risky', 'http.request')]) }),
      ev('ApprovalRequested', { deadline_at: null, plan_version: 1 }),
      ev(
        'PlanUpdated',
        {
          plan: plan(2, [step('a', 'demo.echo')]),
          reason: 'no outside calls',
          kind: 'approval_edit',
          changed_steps: [],
        },
        2,
      ),
    ]);
    expect(view.replaced.map((r) => [r.id, r.status, r.change, r.replaced_by])).toEqual([
      ['risky', 'pending', 'removed', { version: 2, kind: 'approval_edit', reason: 'no outside calls' }],
    ]);
  });

  /** A run whose revision removed step `slow` while its attempt ran. */
  const removedWhileRunning = () => {
    ev = runEventBuilder();
    return [
      ev('RunCreated', { run_id: 'run_1', goal: 'g', config: {}, input: null }),
      ev('PlanAuthored', { plan: plan(1, [step('slow', 'demo.sleep'), step('b', 'demo.echo')]) }),
      invoked('slow', 1, 1, 10),
      ev(
        'PlanUpdated',
        {
          plan: plan(2, [step('b', 'demo.echo')]),
          reason: 'user asked',
          kind: 'revision',
          changed_steps: [],
        },
        2,
        20,
      ),
    ];
  };

  it('closes a replaced step’s attempt that was still running when the run ended, and says it was interrupted', () => {
    const view = fold([
      ...removedWhileRunning(),
      ev('RunTerminated', { status: 'cancelled', reason: 'stop' }, 2, 30),
    ]);
    expect(view.replaced.map((r) => [r.id, r.status, r.history[0]?.ended_at])).toEqual([
      ['slow', 'interrupted', Date.parse(eventTime(30))],
    ]);
  });

  it('keeps a replaced step interrupted when its attempt returns after the run ended, with the outcome on the attempt', () => {
    const view = fold([
      ...removedWhileRunning(),
      ev('RunTerminated', { status: 'completed', reason: 'success' }, 2, 30),
      ev(
        'ToolReturned',
        { step_id: 'slow', attempt: 1, success: true, output: 'late', latency_ms: 35, after_run_ended: true },
        2,
        45,
      ),
    ]);
    expect(
      view.replaced.map((r) => [r.id, r.status, r.history[0]?.success, r.history[0]?.after_run_ended]),
    ).toEqual([['slow', 'interrupted', true, true]]);
  });
});

describe('a revision approved as the first plan was (approval.revisions: "ask")', () => {
  it('says which version each approval decided, and the run goes on once the revision is approved', () => {
    const events = [
      ev('RunCreated', { run_id: 'run_1', goal: 'g', config: {}, input: {} }, null),
      ev('PlanAuthored', { plan: plan(1, [step('a', 'demo.echo'), step('pay', 'demo.flaky')]) }),
      ev('ApprovalRequested', { deadline_at: 1, plan_version: 1 }),
    ];
    const first = fold(events);
    expect(first.status).toBe('awaiting_approval');
    expect(approvedVersion(first)).toBe('');
    events.push(ev('ApprovalGranted', { by: 'approver', comment: 'v1 ok' }));
    // One plan, approved once: nothing to tell apart.
    expect(approvedVersion(fold(events))).toBe('');
    events.push(
      ev(
        'PlanUpdated',
        {
          plan: plan(2, [step('a', 'demo.echo'), step('fixed', 'demo.echo')]),
          reason: 'pay failed',
          kind: 'revision',
          changed_steps: ['fixed'],
        },
        2,
      ),
      ev('ApprovalRequested', { deadline_at: 2, plan_version: 2 }, 2),
    );
    const waiting = fold(events);
    expect(waiting.status).toBe('awaiting_approval');
    // While v2 waits, the approval on record is v1's, and says so.
    expect(waiting.approval).toMatchObject({ decision: 'granted', comment: 'v1 ok', plan_version: 1 });
    expect(approvedVersion(waiting)).toBe(' v1');
    events.push(ev('ApprovalGranted', { by: 'approver', comment: 'fixed is fine' }, 2));
    const approved = fold(events);
    expect(approved.status).toBe('running');
    expect(approved.approval).toMatchObject({ comment: 'fixed is fine', plan_version: 2, revision: true });
    expect(approvedVersion(approved)).toBe(' v2');
  });
});
