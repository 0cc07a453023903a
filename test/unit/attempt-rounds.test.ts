/**
 * A step run again — by a retry of the run, or under a later plan version — says which attempt of
 * that round it is on, out of how many, and in which round, beside its number over the whole run:
 * the fold (run-view.ts) and the words the graph, the step panel and the CLI use (attempt-text.ts).
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/client';
import { applyEvent, emptyView, type RunView } from '../../src/client/run-view';
import { attemptBadge, attemptText, roundAttempts } from '../../src/client/attempt-text';
import { PLAIN, renderLive } from '../../src/cli/render';
import { runEventBuilder } from './run-event-builder';

let ev = runEventBuilder();

const plan = (version: number, parameters: Record<string, unknown> = {}) => ({
  id: 'p',
  version,
  goal: 'g',
  steps: [{ id: 'f', action: 'demo.flaky', dependencies: [], parameters }],
});
const invoked = (attempt: number, v = 1) =>
  ev(
    'ToolInvoked',
    { step_id: 'f', attempt, tool: 'demo.flaky', parameters: {}, idempotency_key: 'run_1:f' },
    v,
  );
const failed = (attempt: number, v = 1) =>
  ev(
    'ToolReturned',
    {
      step_id: 'f',
      attempt,
      success: false,
      latency_ms: 5,
      error: { code: 'demo_flaky', message: `attempt ${attempt} failed`, retryable: true },
    },
    v,
  );
const ok = (attempt: number, v = 1) =>
  ev('ToolReturned', { step_id: 'f', attempt, success: true, output: 'done', latency_ms: 5 }, v);

function fold(events: RunEvent[]): RunView {
  const view = emptyView('run_1');
  for (const e of events) applyEvent(view, e);
  return view;
}

/** A run whose step f failed twice (one retry allowed), then ended failed. */
function failedTwice(): RunView {
  ev = runEventBuilder();
  return fold([
    ev('RunCreated', { run_id: 'run_1', goal: 'g', config: { retry_failed_steps: 1 }, input: null }),
    ev('PlanAuthored', { plan: plan(1) }),
    ev('RunStarted', {}),
    invoked(1),
    failed(1),
    ev('StepRetried', {
      step_id: 'f',
      attempt: 2,
      retry_at: 0,
      delay_ms: 0,
      error: { code: 'demo_flaky', message: 'attempt 1 failed', retryable: true },
    }),
    invoked(2),
    failed(2),
    ev('StepFailed', {
      step_id: 'f',
      error: { code: 'demo_flaky', message: 'attempt 2 failed', retryable: true },
      handled: false,
    }),
    ev('RunTerminated', { status: 'failed', reason: 'steps_failed' }),
  ]);
}

const f = (view: RunView) => view.steps.find((s) => s.id === 'f')!;

describe('a step run again says which attempt of which round it is on', () => {
  it('in its first round: its attempt number, out of the round’s limit of 1 + retries', () => {
    const view = failedTwice();
    expect([f(view).attempts, f(view).round, f(view).attempt_limit]).toEqual([2, null, 2]);
    expect(attemptText(f(view))).toBe('attempt 2');
    expect(attemptBadge(f(view))).toBe('×2');
  });

  it('after a retry: attempt 1 of up to 2 in retry 1, and #3 of the step', () => {
    const view = failedTwice();
    applyEvent(view, ev('RunResumed', { step_ids: ['f'] }));
    expect(f(view).round).toEqual({ kind: 'retry', retry: 1, plan_version: null, first_attempt: null });
    // Reopened, not started: nothing to count yet.
    expect([roundAttempts(f(view)), attemptText(f(view)), attemptBadge(f(view))]).toEqual([0, '', '']);
    applyEvent(view, invoked(3));
    expect(attemptText(f(view))).toBe('attempt 1 of up to 2 in retry 1 (#3 of the step)');
    expect(attemptBadge(f(view))).toBe('↻1/2');
    applyEvent(view, ok(3));
    // The CLI's live line says the same, not a bare "attempt 3".
    const line = renderLive(view, 0, 0, PLAIN, 200);
    expect(line).toContain('attempt 1 of up to 2 in retry 1 (#3 of the step)');
    expect(line).not.toMatch(/attempt 3\b/);
  });

  it('a second retry counts as retry 2, its attempts from where that retry began', () => {
    const view = failedTwice();
    for (const e of [
      ev('RunResumed', { step_ids: ['f'] }),
      invoked(3),
      failed(3),
      invoked(4),
      failed(4),
      ev('RunTerminated', { status: 'failed', reason: 'steps_failed' }),
      ev('RunResumed', { step_ids: ['f'] }),
      invoked(5),
    ])
      applyEvent(view, e);
    expect(attemptText(f(view))).toBe('attempt 1 of up to 2 in retry 2 (#5 of the step)');
  });

  it('under a later plan version: the re-run’s own count and the version, with a fallback in its limit', () => {
    const view = failedTwice();
    const v2 = {
      ...plan(2, { fail_times: 0 }),
      steps: [{ ...plan(2).steps[0]!, retries: 0, fallback_action: { action: 'demo.echo', parameters: {} } }],
    };
    applyEvent(
      view,
      ev('PlanUpdated', { plan: v2, reason: 'fix f', kind: 'revision', changed_steps: ['f'] }, 2),
    );
    applyEvent(view, invoked(3, 2));
    expect(f(view).attempt_limit).toBe(2);
    expect(attemptText(f(view))).toBe('attempt 1 of up to 2 in the re-run under v2 (#3 of the step)');
    expect(attemptBadge(f(view))).toBe('↻1/2');
  });
});
