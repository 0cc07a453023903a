/**
 * The CLI's pure parts (#12): the fold of events into the live view, its text, the plain event line,
 * and the `k=v` / `@file` pairs of `--input` and `--config`.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/client';
import { pairs, formatOf } from '../../src/cli/inputs';
import { eventLine, PLAIN, renderLive } from '../../src/cli/render';
import { applyEvent, emptyView } from '../../src/client/run-view';

let seq = 0;
const at = (ms: number) => new Date(Date.UTC(2026, 10, 24, 10, 0, 0, ms)).toISOString();
function ev(event_type: string, payload: unknown, ms = 0): RunEvent {
  seq += 1;
  return {
    event_id: `e${seq}`,
    seq,
    event_type,
    timestamp: at(ms),
    actor: 'run:run_1',
    references: { plan_id: 'p', plan_version: 1 },
    payload,
  } as RunEvent;
}

const plan = {
  id: 'p',
  version: 1,
  goal: 'g',
  steps: [
    { id: 'a', action: 'demo.sleep', dependencies: [] },
    { id: 'b', action: 'demo.flaky', dependencies: [] },
    { id: 'c', action: 'demo.echo', dependencies: ['a', 'b'] },
  ],
};

describe('the live view', () => {
  it('shows the steps a stop cut off as skipped, as the run records them, and pending again after a retry', () => {
    seq = 0;
    const view = emptyView('run_1');
    const events = [
      ev('RunCreated', { run_id: 'run_1', goal: 'g', config: {}, input: null }),
      ev('PlanAuthored', { plan }),
      ev('ApprovalRequested', { deadline_at: null, plan_version: 1 }),
      ev('ApprovalRejected', { by: 'approver' }),
      ev('RunTerminated', { status: 'cancelled', reason: 'plan_rejected' }),
    ];
    for (const e of events) applyEvent(view, e);
    expect(view.steps.map((s) => s.status)).toEqual(['skipped', 'skipped', 'skipped']);
    expect(view.unapproved).toBe(true);
    // A rejection is no error: the view says why the run ended, not `error: plan_rejected` in red.
    expect([view.error, view.cancel_reason]).toEqual([null, 'plan_rejected']);
    const rejected = renderLive(view, Date.parse(at(0)), 0, PLAIN);
    expect(rejected).toContain(' plan rejected');
    expect(rejected).not.toContain('error:');
    applyEvent(view, ev('RunResumed', { step_ids: ['b', 'c'] }));
    expect(view.status).toBe('running');
    expect(view.cancel_reason).toBeNull();
    expect(view.steps.map((s) => s.status)).toEqual(['skipped', 'pending', 'pending']);
  });

  it('shows a cancel’s reason as the reason it ended, not as an error', () => {
    seq = 0;
    const view = emptyView('run_1');
    applyEvent(view, ev('RunCreated', { run_id: 'run_1', goal: 'g', config: {}, input: null }));
    applyEvent(view, ev('PlanAuthored', { plan }));
    applyEvent(view, ev('RunTerminated', { status: 'cancelled', reason: 'no longer needed' }));
    expect([view.error, view.cancel_reason]).toEqual([null, 'no longer needed']);
    const text = renderLive(view, Date.parse(at(0)), 0, PLAIN);
    expect(text).toContain(' cancelled: no longer needed');
    expect(text).not.toContain('error:');
  });

  it('shows a tool that returned after the run was cancelled: its attempt ended then, with its outcome', () => {
    seq = 0;
    const view = emptyView('run_1');
    for (const e of [
      ev('RunCreated', { run_id: 'run_1', goal: 'g', config: {}, input: null }),
      ev('PlanAuthored', { plan }),
      ev('RunStarted', {}),
      ev('ToolInvoked', {
        step_id: 'a',
        attempt: 1,
        tool: 'demo.sleep',
        parameters: {},
        idempotency_key: 'k',
      }),
      ev('RunTerminated', { status: 'cancelled', reason: 'cancelled by request' }, 100),
    ])
      applyEvent(view, e);
    // Not drawn as running on a run that has ended: it was running when the run ended.
    expect(view.steps[0]!.status).toBe('interrupted');
    const late = ev(
      'ToolReturned',
      { step_id: 'a', attempt: 1, success: true, output: 'slept', latency_ms: 900, after_run_ended: true },
      900,
    );
    applyEvent(view, late);
    const a = view.steps[0]!;
    expect(a.status).toBe('completed');
    // The attempt the end had closed gets its real outcome and end, and says when it came.
    expect(a.history).toEqual([
      expect.objectContaining({
        attempt: 1,
        success: true,
        output: 'slept',
        ended_at: Date.parse(at(900)),
        after_run_ended: true,
      }),
    ]);
    expect([view.status, view.cancel_reason]).toEqual(['cancelled', 'cancelled by request']);
    const text = renderLive(view, Date.parse(at(1000)), 0, PLAIN);
    expect(text).toMatch(/✔ a\s+demo\.sleep\s+900ms after the run ended/);
    expect(eventLine(late)).toContain('ok 900ms — after the run ended (the tool ran; the result is kept)');
  });

  it('says once that the steps queue has no consumer, in the view and the event line', () => {
    seq = 0;
    const view = emptyView('run_1');
    applyEvent(view, ev('RunCreated', { run_id: 'run_1', goal: 'g', config: {}, input: null }));
    applyEvent(view, ev('PlanAuthored', { plan }));
    const error = {
      code: 'queue_not_consumed',
      message: 'No consumer of the steps queue took it',
      retryable: true,
    };
    const moved = (step_id: string) =>
      ev('StepRedispatched', {
        step_id,
        attempt: 1,
        action: 'demo.sleep',
        fallback: false,
        dispatch: 'inline',
        deadline_at: 0,
        waited_ms: 60_000,
        error,
      });
    applyEvent(view, moved('a'));
    applyEvent(view, moved('b'));
    expect(view.notices).toEqual([{ code: 'queue_not_consumed', message: error.message, step_id: 'a' }]);
    const text = renderLive(view, Date.parse(at(0)), 0, PLAIN);
    expect(text.match(/⚠ queue_not_consumed: No consumer of the steps queue took it/g)).toHaveLength(1);
    expect(eventLine(moved('a'))).toContain(
      'StepRedispatched    a  → inline after 1m00s: queue_not_consumed: No consumer',
    );
  });

  it("says when a retrying step's next attempt starts, and when the wait is the service's Retry-After", () => {
    seq = 0;
    const view = emptyView('run_1');
    const invoked = (step_id: string, tool: string) =>
      ev('ToolInvoked', { step_id, attempt: 1, tool, parameters: {}, idempotency_key: 'k' }, 0);
    const retried = (step_id: string, delay_ms: number, retry_after_ms?: number) =>
      ev(
        'StepRetried',
        {
          step_id,
          attempt: 2,
          retry_at: Date.parse(at(0)) + delay_ms,
          delay_ms,
          error: { code: 'http_status', message: 'answered 429', retryable: true, retry_after_ms },
        },
        0,
      );
    for (const e of [
      ev('RunCreated', { run_id: 'run_1', goal: 'g', config: {}, input: null }),
      ev('PlanAuthored', { plan }),
      ev('RunStarted', {}, 0),
      invoked('a', 'demo.sleep'),
      invoked('b', 'demo.flaky'),
      retried('a', 30_000, 30_000),
      retried('b', 2000, 500),
    ])
      applyEvent(view, e);
    const text = renderLive(view, Date.parse(at(1000)), 0, PLAIN);
    expect(text).toMatch(/↻ a .*retry in 29\.0s \(Retry-After\): answered/);
    expect(text).toMatch(/↻ b .*retry in 1\.0s: answered 429/);
    // Once the attempt starts, the wait is over.
    applyEvent(
      view,
      ev(
        'ToolInvoked',
        { step_id: 'a', attempt: 2, tool: 'demo.sleep', parameters: {}, idempotency_key: 'k' },
        30_000,
      ),
    );
    expect(view.steps.find((x) => x.id === 'a')?.next_attempt).toBeUndefined();
    expect(renderLive(view, Date.parse(at(30_500)), 0, PLAIN)).not.toContain('retry in');
  });

  it('folds a run: running with attempts, retried, failed, skipped, and the end', () => {
    seq = 0;
    const view = emptyView('run_1');
    const events = [
      ev('RunCreated', { run_id: 'run_1', goal: 'fan out', config: {}, input: null }),
      ev('PlanAuthored', { plan }),
      ev('PlanValidated', {
        valid: true,
        estimates: {
          step_count: 3,
          total_step_count: 3,
          critical_path: { steps: ['a', 'c'], duration_ms: 1500 },
          max_width: 2,
          estimated_tokens: 0,
        },
      }),
      ev('RunStarted', {}, 0),
      ev(
        'ToolInvoked',
        { step_id: 'a', attempt: 1, tool: 'demo.sleep', parameters: {}, idempotency_key: 'k' },
        0,
      ),
      ev(
        'ToolInvoked',
        { step_id: 'b', attempt: 1, tool: 'demo.flaky', parameters: {}, idempotency_key: 'k' },
        0,
      ),
      ev(
        'StepRetried',
        {
          step_id: 'b',
          attempt: 1,
          retry_at: 0,
          delay_ms: 10,
          error: { code: 'tool_error', message: 'flaked', retryable: true },
        },
        5,
      ),
      ev(
        'ToolInvoked',
        { step_id: 'b', attempt: 2, tool: 'demo.flaky', parameters: {}, idempotency_key: 'k' },
        20,
      ),
    ];
    for (const e of events) applyEvent(view, e);
    const running = renderLive(view, Date.parse(at(700)), 0, PLAIN);
    expect(running).toMatch(/^edgeplan run_1 {2}running {2}700 ms running$/m);
    expect(running).toMatch(/⠋ a\s+demo\.sleep\s+700ms ◆/);
    expect(running).toMatch(/⠋ b\s+demo\.flaky\s+680ms attempt 2/);
    expect(running).toMatch(/○ c\s+demo\.echo\s+◆/);
    expect(running).toMatch(/critical path ◆ a → c \(est\. 1\.5s\)/);
    applyEvent(
      view,
      ev('ToolReturned', { step_id: 'a', attempt: 1, success: true, output: 1, latency_ms: 1500 }, 1500),
    );
    applyEvent(
      view,
      ev(
        'StepFailed',
        {
          step_id: 'b',
          error: { code: 'tool_error', message: 'flaked again', retryable: true },
          handled: false,
        },
        1600,
      ),
    );
    applyEvent(view, ev('StepSkipped', { step_id: 'c', reason: 'dependency_failed' }, 1600));
    applyEvent(
      view,
      ev(
        'RunTerminated',
        {
          status: 'failed',
          reason: 'step b failed',
          error: { code: 'step_failed', message: 'b failed', retryable: false },
        },
        1600,
      ),
    );
    const ended = renderLive(view, Date.parse(at(9000)), 3, PLAIN);
    expect(ended).toMatch(/^edgeplan run_1 {2}failed {2}1\.6 s running$/m);
    expect(ended).toMatch(/✔ a\s+demo\.sleep\s+1\.5s ◆/);
    expect(ended).toMatch(/✖ b\s+demo\.flaky.*attempt 2 {2}flaked again/);
    expect(ended).toMatch(/⊘ c\s+demo\.echo.*dependency_failed/);
    // One step completed of three: a failed run is not shown as all done.
    expect(ended).toMatch(/ 1\/3 steps done, 1 failed, 1 skipped$/m);
    expect(ended).toMatch(/error: b failed/);
    expect(view.status).toBe('failed');
  });

  it('shows what a run waits for', () => {
    seq = 0;
    const view = emptyView('run_2');
    applyEvent(view, ev('PlanAuthored', { plan }));
    applyEvent(view, ev('ApprovalRequested', { deadline_at: null, plan_version: 1 }));
    expect(renderLive(view, 0, 0, PLAIN)).toMatch(/awaiting_approval[\s\S]*waiting for approval/);
    applyEvent(view, ev('ApprovalGranted', { by: 'approver' }));
    applyEvent(view, ev('InputRequested', { reason: 'human.input', step_id: 'a', prompt: 'Which city?' }));
    expect(renderLive(view, 0, 0, PLAIN)).toMatch(/waiting for input: Which city\?$/m);
    // A question that says when it is due: by when, and what then.
    applyEvent(
      view,
      ev('InputRequested', {
        reason: 'Which city?',
        step_id: 'a',
        prompt: 'Which city?',
        deadline: '2026-12-02T10:37:00.000Z',
        if_unanswered: 'step_fails',
        retries_left: 0,
      }),
    );
    expect(renderLive(view, 0, 0, PLAIN)).toMatch(
      /waiting for input: Which city\? \(until 2026-12-02 10:37 UTC, then the step fails\)$/m,
    );
  });

  it('says how long the run ran apart from how long it waited for approval and for input, as show does', () => {
    seq = 0;
    const H = 3600_000;
    const view = emptyView('run_3');
    applyEvent(view, ev('PlanAuthored', { plan }));
    applyEvent(view, ev('ApprovalRequested', { deadline_at: null, plan_version: 1 }, 0));
    // Still waiting: the wait is counted up to now, and nothing has run.
    expect(renderLive(view, Date.parse(at(2 * H)), 0, PLAIN)).toMatch(
      /^edgeplan run_3 {2}awaiting_approval {2}0 ms running · waited 2 h for approval$/m,
    );
    applyEvent(view, ev('ApprovalGranted', { by: 'approver' }, 3 * H));
    applyEvent(view, ev('RunStarted', {}, 3 * H));
    applyEvent(
      view,
      ev('InputRequested', { reason: 'human.input', step_id: 'a', prompt: 'Which city?' }, 3 * H + 2000),
    );
    applyEvent(view, ev('InputReceived', { input: 'Oslo', step_id: 'a' }, 3 * H + 2000 + 5 * 60_000));
    // Three hours of waiting are not three hours of work.
    expect(renderLive(view, Date.parse(at(3 * H + 2000 + 5 * 60_000 + 1500)), 0, PLAIN)).toMatch(
      /^edgeplan run_3 {2}running {2}3\.5 s running · waited 3 h for approval, 5 min for input$/m,
    );
  });

  it('prints one plain line per event', () => {
    seq = 9;
    const line = eventLine(
      ev(
        'ToolReturned',
        {
          step_id: 'a',
          attempt: 1,
          success: false,
          error: { code: 'timeout', message: 'slow', retryable: true },
          latency_ms: 12.4,
        },
        42,
      ),
    );
    expect(line).toBe('  10  10:00:00.042  ToolReturned        a  error timeout 12ms');
    const failed = eventLine(
      ev('RunTerminated', {
        status: 'failed',
        reason: 'planning_failed',
        error: { code: 'planning_failed', message: 'No model produced a valid plan', retryable: false },
      }),
    );
    expect(failed).toMatch(/RunTerminated\s+failed: planning_failed — No model produced a valid plan$/);
    const done = eventLine(ev('RunTerminated', { status: 'completed', reason: 'all steps completed' }));
    expect(done).toMatch(/RunTerminated\s+completed: all steps completed$/);
  });

  it('says why a plan changed, and how an approval webhook went', () => {
    const revised = eventLine(
      ev('PlanUpdated', {
        plan: { ...plan, version: 3 },
        reason: 'step "check" failed: no item NOPE-9',
        kind: 'revision',
        changed_steps: ['c'],
      }),
    );
    expect(revised).toMatch(/PlanUpdated\s+3 steps \(v3, revision\): step "check" failed: no item NOPE-9$/);
    const retried = eventLine(
      ev('ApprovalWebhookAttempted', {
        attempt: 1,
        ok: false,
        status: 503,
        next_attempt_at: Date.parse(at(1_000)),
      }),
    );
    expect(retried).toMatch(/ApprovalWebhookAttempted\s+attempt 1 failed: 503; again at 10:00:01$/);
    const refused = eventLine(
      ev('ApprovalWebhookAttempted', {
        attempt: 2,
        ok: false,
        error: 'connect ECONNREFUSED',
        next_attempt_at: null,
      }),
    );
    // The last attempt says so: an operator reading the events knows the approver was not told.
    expect(refused).toMatch(/attempt 2 failed: connect ECONNREFUSED; not sent again$/);
    const tomorrow = eventLine(
      ev('ApprovalWebhookAttempted', {
        attempt: 20,
        ok: false,
        status: 503,
        next_attempt_at: Date.parse(at(86_400_000)),
      }),
    );
    // Hourly retries go on for days: one due another day says which.
    expect(tomorrow).toMatch(/attempt 20 failed: 503; again at \d{4}-\d\d-\d\d 10:00:00$/);
    const delivered = eventLine(
      ev('ApprovalWebhookAttempted', { attempt: 3, ok: true, status: 204, next_attempt_at: null }),
    );
    expect(delivered).toMatch(/attempt 3 delivered \(204\)$/);
  });
});

describe('--input and --config pairs', () => {
  it('parses JSON values, dotted keys and @file.json', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pairs-'));
    const path = join(dir, 'in.json');
    writeFileSync(path, JSON.stringify({ city: 'Oslo', n: 1 }));
    expect(pairs(['n=3', 'name=Ada', 'approval.timeout_s=60', 'flag=true', `@${path}`], '--input')).toEqual({
      n: 1,
      name: 'Ada',
      approval: { timeout_s: 60 },
      flag: true,
      city: 'Oslo',
    });
  });

  it('refuses what is not a pair, a prototype key, and an unknown extension', () => {
    expect(() => pairs(['oops'], '--config')).toThrow(/key=value or @file\.json/);
    expect(() => pairs(['__proto__.x=1'], '--config')).toThrow(/not a key path/);
    const toml = join(mkdtempSync(join(tmpdir(), 'edgeplan-format-')), 'plan.toml');
    writeFileSync(toml, 'steps = []');
    expect(() => formatOf(toml)).toThrow(/Cannot tell the format/);
    // What is wrong first: no such file, or a directory, rather than its extension.
    expect(() => formatOf('no-such-plan')).toThrow('Cannot read no-such-plan: no such file');
    expect(() => formatOf(tmpdir())).toThrow(`Cannot read ${tmpdir()}: it is a directory`);
    expect(formatOf('flow.YML')).toBe('tea-yaml');
    expect(formatOf('x.anything', 'llmcompiler')).toBe('llmcompiler');
  });
});
