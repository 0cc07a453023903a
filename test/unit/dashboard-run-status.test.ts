/**
 * What a run's page says the run is now (src/ui/run-status.ts), in plain Node: the snapshot's status
 * when it is ahead of the events, no actions while the page replays the run's past, a rejected plan
 * shown as `rejected`, nothing known before anything is read, and the failed step a skipped one waits
 * behind, through inferred dependencies.
 */
import { describe, expect, it } from 'vitest';
import type { Run, StepView } from '../../src/client';
import { emptyView } from '../../src/client/run-view';
import { failedDependency, runStatusNow, type FollowedRun } from '../../src/ui/run-status';

const step = (id: string, status: StepView['status'], dependencies: string[] = []): StepView => ({
  id,
  action: 'demo.echo',
  dependencies,
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
  planned: { id, action: 'demo.echo', parameters: {}, dependencies },
});

/** A page following run_x: its events folded up to `last_seq`, and the snapshot it read. */
function live(o: {
  status: string;
  last_seq: number;
  steps: StepView[];
  run: Partial<Run> | null;
  caughtUp: boolean;
}): FollowedRun {
  const view = {
    ...emptyView('run_x'),
    status: o.status,
    last_seq: o.last_seq,
    steps: o.steps,
    plan_version: 1,
  };
  return { view, events: [], run: o.run as Run | null, caughtUp: o.caughtUp };
}

const counts = (completed: number, total: number) => ({
  total,
  pending: 0,
  blocked: 0,
  running: 0,
  completed,
  failed: 0,
  skipped: total - completed,
  interrupted: 0,
});

describe('a run page’s status now', () => {
  it('knows nothing of the run before its snapshot or an event is read, then knows it', () => {
    const unread = { view: emptyView('run_x'), events: [], run: null, caughtUp: false };
    expect(runStatusNow(unread, 'run_x').known).toBe(false);
    const evented = live({ status: 'awaiting_approval', last_seq: 3, steps: [], run: null, caughtUp: false });
    expect(runStatusNow(evented, 'run_x').known).toBe(true);
    const snapshot = {
      ...unread,
      run: { status: 'awaiting_approval', last_seq: 3, counts: counts(0, 0), steps: {} } as unknown as Run,
    };
    expect(runStatusNow(snapshot, 'run_x').known).toBe(true);
  });

  it('takes the snapshot’s status and counts when it is ahead of the events', () => {
    const now = runStatusNow(
      live({
        status: 'awaiting_approval',
        last_seq: 4,
        steps: [step('a', 'pending'), step('b', 'pending')],
        run: {
          status: 'cancelled',
          last_seq: 6,
          counts: counts(0, 2),
          termination_reason: 'plan_rejected',
          steps: {},
        },
        caughtUp: true,
      }),
      'run_x',
    );
    expect(now).toMatchObject({
      status: 'cancelled',
      shown: 'rejected',
      ended: true,
      rejected: true,
      waitingApproval: false,
      completed: 0,
      skipped: 2,
      total: 2,
    });
  });

  it('counts a step the ended run cut off as interrupted, from the events and from a snapshot ahead of them', () => {
    const fromEvents = runStatusNow(
      live({
        status: 'cancelled',
        last_seq: 9,
        steps: [step('a', 'completed'), step('b', 'interrupted'), step('c', 'skipped')],
        run: null,
        caughtUp: true,
      }),
      'run_x',
    );
    expect(fromEvents).toMatchObject({ completed: 1, interrupted: 1, skipped: 1, total: 3 });
    const ahead = runStatusNow(
      live({
        status: 'running',
        last_seq: 4,
        steps: [step('a', 'running'), step('b', 'running')],
        run: {
          status: 'cancelled',
          last_seq: 6,
          counts: { ...counts(0, 2), skipped: 0, interrupted: 2 },
          termination_reason: 'stop',
          steps: {},
        },
        caughtUp: true,
      }),
      'run_x',
    );
    expect(ahead).toMatchObject({ status: 'cancelled', interrupted: 2, total: 2 });
  });

  it('offers nothing while the page replays the run’s past, and the events’ status until the snapshot is ahead', () => {
    const replaying = live({
      status: 'awaiting_approval',
      last_seq: 2,
      steps: [step('a', 'pending')],
      run: { status: 'running', last_seq: 9, counts: counts(0, 1), termination_reason: null, steps: {} },
      caughtUp: false,
    });
    const now = runStatusNow(replaying, 'run_x');
    expect([now.status, now.acts, now.waitingApproval]).toEqual(['awaiting_approval', false, false]);
    // The goal: the events', else the snapshot's, else the run id.
    expect(now.goal).toBe('run_x');
  });

  it('counts and colours the steps as the snapshot has them while the page replays the past to it', () => {
    const replaying = live({
      status: 'running',
      last_seq: 5,
      steps: [step('a', 'completed'), step('b', 'running'), step('c', 'pending')],
      run: {
        status: 'completed',
        last_seq: 12,
        counts: counts(3, 3),
        termination_reason: 'success',
        steps: {
          a: { status: 'completed', attempts: 1 },
          b: { status: 'completed', attempts: 1 },
          c: { status: 'completed', attempts: 1 },
        } as unknown as Run['steps'],
      },
      caughtUp: false,
    });
    const now = runStatusNow(replaying, 'run_x');
    expect(now).toMatchObject({ status: 'completed', completed: 3, total: 3, acts: false });
    expect(now.steps.map((s) => s.status)).toEqual(['completed', 'completed', 'completed']);
  });

  it('finds the failed step a skipped one waits behind, through listed and inferred dependencies', () => {
    const steps = [step('fetch', 'failed'), step('parse', 'skipped'), step('report', 'skipped', ['parse'])];
    const inferred = { parse: ['fetch'] };
    expect(failedDependency(steps, inferred, 'report')).toBe('fetch');
    expect(failedDependency(steps, inferred, 'parse')).toBe('fetch');
    expect(failedDependency(steps, {}, 'parse')).toBeNull();
  });
});
