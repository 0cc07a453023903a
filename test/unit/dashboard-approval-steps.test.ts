/**
 * Which steps of a plan awaiting approval the dashboard counts as "to approve" (src/ui/approval-steps.ts),
 * in plain Node: a revision's steps already done, skipped or still running are kept from before and
 * set apart, in plan order, with a line that sums them up.
 */
import { describe, expect, it } from 'vitest';
import type { StepView } from '../../src/client';
import { keptOf, keptSummary, splitForApproval } from '../../src/ui/approval-steps';

const step = (id: string, status: StepView['status']): StepView => ({
  id,
  action: 'demo.echo',
  dependencies: [],
  status,
  attempts: status === 'pending' ? 0 : 1,
  round: null,
  attempt_limit: 2,
  started_at: null,
  latency_ms: null,
  error: null,
  skip_reason: null,
  fallback: false,
  history: [],
  planned: { id, action: 'demo.echo', parameters: {}, dependencies: [] },
});

describe('the steps an approval lets run', () => {
  /** The plan's steps to approve and the ones set apart, by id, as the run page splits them. */
  const split = (steps: StepView[]) => {
    const kept = keptOf(steps);
    const { toRun, held } = splitForApproval(
      steps.map((s) => s.planned),
      kept,
    );
    return { toRun: toRun.map((s) => s.id), held: held.map((s) => [s.id, kept.get(s.id)]) };
  };

  it('are every step of a first plan, nothing kept', () => {
    expect(split([step('a', 'pending'), step('b', 'pending')])).toEqual({ toRun: ['a', 'b'], held: [] });
  });

  it('leave out, in plan order, a revision’s steps done, skipped or running under the earlier version', () => {
    const steps = [
      step('fetch', 'completed'),
      step('slow', 'running'),
      step('again', 'retrying'),
      step('parse2', 'pending'),
      step('cleanup', 'skipped'),
      step('report', 'pending'),
    ];
    expect(split(steps)).toEqual({
      toRun: ['parse2', 'report'],
      held: [
        ['fetch', 'done'],
        ['slow', 'running'],
        ['again', 'running'],
        ['cleanup', 'skipped'],
      ],
    });
  });

  it('count a failed or interrupted step as one to run: only a step that will not run again is kept', () => {
    expect(split([step('f', 'failed'), step('i', 'interrupted')]).toRun).toEqual(['f', 'i']);
  });
});

describe('the line that sums up the kept steps', () => {
  it.each([
    [['done'], '1 step already done — kept from before, not run again'],
    [['done', 'done', 'running'], '2 steps already done, 1 running — kept from before, not run again'],
    [['done', 'skipped'], '1 step already done, 1 skipped — kept from before, not run again'],
    [['running'], '1 step running — kept from before, not run again'],
    [['skipped', 'skipped', 'running'], '2 steps skipped, 1 running — kept from before, not run again'],
  ] as const)('%j reads "%s"', (states, text) => {
    expect(keptSummary(states)).toBe(text);
  });
});
