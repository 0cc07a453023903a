import { describe, expect, it } from 'vitest';
import { approvalChanges, revisionCauses, summaryText } from '../../src/plan/approval-changes';
import type { Plan, PlanStep } from '../../src/plan/model';

function step(id: string, extra: Partial<PlanStep> = {}): PlanStep {
  return { id, description: `do ${id}`, action: 'demo.echo', parameters: {}, dependencies: [], ...extra };
}

function plan(version: number, steps: PlanStep[]): Plan {
  return {
    id: 'plan_1',
    version,
    goal: 'g',
    strategy: 'flat',
    steps,
    created_at: '2026-01-01T00:00:00.000Z',
  };
}

describe('approvalChanges', () => {
  const approved = plan(1, [
    step('fetch', { action: 'http.request', parameters: { url: 'https://a.example', method: 'GET' } }),
    step('flaky', { dependencies: ['fetch'] }),
    step('report', { dependencies: ['flaky'], parameters: { text: 'x' } }),
  ]);
  const pending = plan(3, [
    step('fetch', { action: 'http.request', parameters: { url: 'https://b.example', method: 'GET' } }),
    step('retry_fetch', { action: 'http.request', dependencies: ['fetch'] }),
    step('check', { dependencies: ['retry_fetch'] }),
    step('report', { dependencies: ['check'], parameters: { text: 'x' }, action: 'llm.call' }),
  ]);

  it('lists the steps added, changed (fields, parameter keys, dependencies) and removed since the approved version', () => {
    const c = approvalChanges(approved, pending, []);
    expect(c.since_version).toBe(1);
    expect(c.plan_version).toBe(3);
    expect(c.counts).toEqual({ added: 2, changed: 2, removed: 1 });
    expect(c.added).toEqual([
      {
        step_id: 'retry_fetch',
        action: 'http.request',
        description: 'do retry_fetch',
        dependencies: ['fetch'],
      },
      { step_id: 'check', action: 'demo.echo', description: 'do check', dependencies: ['retry_fetch'] },
    ]);
    expect(c.removed).toEqual([{ step_id: 'flaky', action: 'demo.echo', description: 'do flaky' }]);
    const fetch = c.changed.find((s) => s.step_id === 'fetch')!;
    expect(fetch.parameters).toEqual(['url']);
    expect(fetch.fields.parameters).toEqual({
      from: { url: 'https://a.example', method: 'GET' },
      to: { url: 'https://b.example', method: 'GET' },
    });
    const report = c.changed.find((s) => s.step_id === 'report')!;
    expect(report).toMatchObject({
      action: 'llm.call',
      parameters: [],
      dependencies_added: ['check'],
      dependencies_removed: ['flaky'],
    });
    expect(Object.keys(report.fields)).toEqual(['action', 'dependencies']);
    expect(c.summary).toBe('v3 adds 2 steps, changes 2 and removes 1 since v1 was approved');
  });

  it('names a parameter that was added or taken away as changed', () => {
    const a = plan(1, [step('s', { parameters: { keep: 1, gone: 2 } })]);
    const b = plan(2, [step('s', { parameters: { keep: 1, fresh: 3 } })]);
    expect(approvalChanges(a, b, []).changed[0]!.parameters).toEqual(['fresh', 'gone']);
  });

  it('carries the causes it is given, and says so when no step changed', () => {
    const causes = [
      { plan_version: 2, kind: 'revision', reason: 'r', trigger: 'user_request', step_id: null },
    ];
    const c = approvalChanges(plan(1, [step('a')]), plan(2, [step('a')]), causes);
    expect(c.revisions).toEqual(causes);
    expect(c.summary).toBe('v2 changes no step since v1 was approved');
  });
});

describe('summaryText', () => {
  it('names the unit once, joins the last count with "and", and leaves out zeros', () => {
    expect(summaryText(1, 2, { added: 1, changed: 0, removed: 0 })).toBe(
      'v2 adds 1 step since v1 was approved',
    );
    expect(summaryText(1, 2, { added: 0, changed: 3, removed: 1 })).toBe(
      'v2 changes 3 steps and removes 1 since v1 was approved',
    );
  });
});

describe('revisionCauses', () => {
  it('pairs each revision with the request that led to it, and a rollback or edit with none', () => {
    const causes = revisionCauses(
      [
        { seq: 10, plan_version: 2, kind: 'revision', reason: 'step "b" failed: boom' },
        { seq: 20, plan_version: 3, kind: 'rollback', reason: 'rollback to version 1' },
        { seq: 30, plan_version: 4, kind: 'turn', reason: 'next turn' },
      ],
      [
        { seq: 4, trigger: 'step_failure', step_id: 'a' },
        { seq: 8, trigger: 'step_failure', step_id: 'b' },
        { seq: 15, trigger: 'user_request' },
        { seq: 25, trigger: 'next_turn' },
      ],
    );
    expect(causes).toEqual([
      {
        plan_version: 2,
        kind: 'revision',
        reason: 'step "b" failed: boom',
        trigger: 'step_failure',
        step_id: 'b',
      },
      { plan_version: 3, kind: 'rollback', reason: 'rollback to version 1', trigger: null, step_id: null },
      { plan_version: 4, kind: 'turn', reason: 'next turn', trigger: 'next_turn', step_id: null },
    ]);
  });
});
