/**
 * The terminal's text of a run's history: the replaced steps under the live view's current plan, who
 * approved and what their edit changed, a step's note (the fallback that ran, an earlier incarnation),
 * an interrupted step, and the event lines that say why (a revision's trigger, an approval's comment,
 * an answer, a fallback's tool, a skip's detail).
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/client';
import { changesText, replacedStatus, replacedText } from '../../src/client/replaced-text';
import { applyEvent, emptyView, type RunView } from '../../src/client/run-view';
import { decisionLines, eventLine, PLAIN, renderLive, replacedLines, stepNote } from '../../src/cli/render';
import { eventTime, runEventBuilder } from './run-event-builder';

let ev = runEventBuilder();
const fold = (events: RunEvent[]): RunView => {
  const view = emptyView('run_1');
  for (const e of events) applyEvent(view, e);
  return view;
};
const step = (id: string, action = 'demo.echo', extra: Record<string, unknown> = {}) => ({
  id,
  action,
  dependencies: [],
  parameters: {},
  ...extra,
});

describe('the terminal’s history of a run', () => {
  it('lists a replaced step under the current plan with its attempts, error and why, and the error once', () => {
    ev = runEventBuilder();
    const view = fold([
      ev('RunCreated', { run_id: 'run_1', goal: 'g', config: {}, input: null }),
      ev('PlanAuthored', { plan: { id: 'p', version: 1, goal: 'g', steps: [step('fetch', 'demo.flaky')] } }),
      ev('ToolInvoked', {
        step_id: 'fetch',
        attempt: 1,
        tool: 'demo.flaky',
        parameters: {},
        idempotency_key: 'k',
      }),
      ev('ToolReturned', {
        step_id: 'fetch',
        attempt: 1,
        success: false,
        latency_ms: 3,
        error: { code: 'x', message: 'boom', retryable: false },
      }),
      ev('StepFailed', {
        step_id: 'fetch',
        error: { code: 'x', message: 'boom', retryable: false },
        handled: false,
      }),
      ev(
        'PlanUpdated',
        {
          plan: { id: 'p', version: 2, goal: 'g', steps: [step('mirror')] },
          reason: 'the mirror has it',
          kind: 'revision',
          changed_steps: ['mirror'],
        },
        2,
      ),
    ]);
    const text = renderLive(view, Date.parse(eventTime(10)), 0, PLAIN);
    // The current plan first, then what it replaced.
    expect(text.indexOf('mirror')).toBeLessThan(text.indexOf('replaced by a later plan version (1):'));
    expect(text).toMatch(
      /✖ fetch\s+failed ×1 {2}boom\n {5}v1, removed by v2 \(revision\): the mirror has it/,
    );
    // A reason that quotes the error does not get it twice.
    const quoted = {
      ...view.replaced[0]!,
      replaced_by: { version: 2, kind: 'revision', reason: 'fetch: boom' },
    };
    expect(replacedLines([quoted], PLAIN).join('\n')).not.toMatch(/boom.*\n.*boom/);
    expect(replacedLines([], PLAIN)).toEqual([]);
  });

  it('says a replaced step that never ran is not run, and a version’s changes in words', () => {
    expect(replacedStatus({ status: 'pending', history: [] })).toBe('not run');
    expect(replacedStatus({ status: 'failed', history: [] })).toBe('failed');
    expect(
      replacedText({
        plan_version: 1,
        change: 'rerun',
        replaced_by: { version: 3, kind: 'approval_edit', reason: 'ok' },
      }),
    ).toBe('v1, run again in v3 (approver’s edit): ok');
    expect(changesText({ added: ['c'], changed: ['a'], removed: ['b'] })).toBe(
      'changed a; removed b; added c',
    );
    expect(changesText({ added: [], changed: [], removed: [] })).toBe('');
    expect(changesText(undefined)).toBe('');
  });

  it('says who approved with the comment and what the edit changed, and a deadline’s default as such', () => {
    ev = runEventBuilder();
    const plan = { id: 'p', version: 1, goal: 'g', steps: [step('a'), step('b')] };
    const edited = fold([
      ev('PlanAuthored', { plan }),
      ev('ApprovalRequested', { deadline_at: null, plan_version: 1 }),
      ev(
        'PlanUpdated',
        {
          plan: { ...plan, version: 2, steps: [step('a', 'demo.echo', { parameters: { v: 2 } })] },
          reason: 'safer',
          kind: 'approval_edit',
          changed_steps: ['a'],
        },
        2,
      ),
      ev('ApprovalGranted', { comment: 'safer', by: 'approver' }, 2),
    ]);
    // An event that does not say how the decision came (recorded before it did): nobody is made up.
    expect(decisionLines(edited)).toEqual(['approved: safer', 'edited into v2: changed a; removed b']);
    // Who edited is the decision line's: how it came, or the name given, is said there and not again.
    const editedBy = (named: Record<string, string>) =>
      fold([
        ev('PlanAuthored', { plan }),
        ev('ApprovalRequested', { deadline_at: null, plan_version: 1 }),
        ev(
          'PlanUpdated',
          {
            plan: { ...plan, version: 2, steps: [step('a')] },
            reason: 'ok',
            kind: 'approval_edit',
            changed_steps: [],
          },
          2,
        ),
        ev('ApprovalGranted', { comment: 'ok', by: 'approver', ...named }, 2),
      ]);
    expect(decisionLines(editedBy({ approver_via: 'link' }))).toEqual([
      'approved from the approval link: ok',
      'edited into v2: removed b',
    ]);
    expect(decisionLines(editedBy({ approver_via: 'token' }))).toEqual([
      'approved with the API token: ok',
      'edited into v2: removed b',
    ]);
    expect(decisionLines(editedBy({ approver: 'Ada', approver_via: 'link' }))).toEqual([
      'approved by “Ada” (typed on the approval link): ok',
      'edited into v2: removed b',
    ]);
    // `watch` says it the same way.
    expect(renderLive(editedBy({ approver_via: 'anonymous' }), 0, 0, PLAIN)).toContain(
      ' approved through the API without a token: ok\n edited into v2: removed b',
    );
    const timedOut = fold([ev('PlanAuthored', { plan }), ev('ApprovalGranted', { by: 'timeout' })]);
    expect(decisionLines(timedOut)).toEqual([
      'approved when the approval deadline passed (its default action)',
    ]);
    expect(renderLive(timedOut, 0, 0, PLAIN)).toContain(
      ' approved when the approval deadline passed (its default action)',
    );
  });

  it('notes the fallback that ran and a step interrupted by the run’s end', () => {
    ev = runEventBuilder();
    const view = fold([
      ev('PlanAuthored', {
        plan: {
          id: 'p',
          version: 1,
          goal: 'g',
          steps: [step('p1', 'demo.flaky'), step('slow', 'demo.sleep')],
        },
      }),
      ev('StepScheduled', {
        step_id: 'p1',
        attempt: 2,
        action: 'demo.echo',
        fallback: true,
        dispatch: 'inline',
        deadline_at: 0,
      }),
      ev('ToolInvoked', {
        step_id: 'p1',
        attempt: 2,
        tool: 'demo.echo',
        parameters: {},
        idempotency_key: 'k',
      }),
      ev('ToolReturned', { step_id: 'p1', attempt: 2, success: true, output: 1, latency_ms: 1 }),
      ev('ToolInvoked', {
        step_id: 'slow',
        attempt: 1,
        tool: 'demo.sleep',
        parameters: {},
        idempotency_key: 'k2',
      }),
      ev('RunTerminated', { status: 'cancelled', reason: 'stop' }, 1, 50),
    ]);
    expect(stepNote(view, 'p1', '')).toBe('via fallback demo.echo');
    expect(view.steps.find((s) => s.id === 'slow')?.status).toBe('interrupted');
    const text = renderLive(view, Date.parse(eventTime(60)), 0, PLAIN);
    expect(text).toMatch(/✔ p1\s+demo\.flaky\s+1ms attempt 2 fallback demo\.echo/);
    expect(text).toMatch(/◌ slow\s+demo\.sleep\s+running when the run ended/);
    expect(text).toMatch(/1\/2 steps done, 1 interrupted$/m);
  });

  it('keeps who answered a question on its step, and not past the next answer', () => {
    ev = runEventBuilder();
    const events = [
      ev('PlanAuthored', { plan: { id: 'p', version: 1, goal: 'g', steps: [step('ask', 'human.input')] } }),
      ev('InputRequested', { reason: 'human.input', step_id: 'ask', prompt: 'Ship?' }),
      ev('InputReceived', { input: 'yes', step_id: 'ask', answered_by: 'ada@example.com' }),
    ];
    expect(fold(events).steps[0]?.answered_by).toBe('ada@example.com');
    // Asked again (a retry) and answered by someone who gave no name: no earlier answerer shown.
    const again = fold([...events, ev('InputReceived', { input: 'no', step_id: 'ask' })]);
    expect(again.steps[0]?.answered_by).toBeUndefined();
  });

  it('says why in the event lines: a revision’s trigger, an approval’s comment, an answer, a fallback, a skip', () => {
    ev = runEventBuilder();
    expect(
      eventLine(ev('RunCreated', { run_id: 'run_1', goal: 'ship it', config: {}, input: null })),
    ).toMatch(/RunCreated\s+goal: ship it$/);
    expect(eventLine(ev('RunCreated', { run_id: 'run_1', goal: '', config: {}, input: null }))).toMatch(
      /RunCreated\s+a plan without a goal$/,
    );
    expect(
      eventLine(
        ev('RevisionRequested', {
          trigger: 'step_failure',
          reason: 'step "f" failed: boom',
          step_id: 'f',
          strategy: 'replan_remaining',
        }),
      ),
    ).toMatch(/RevisionRequested\s+f\s+step_failure → replan_remaining: step "f" failed: boom$/);
    expect(eventLine(ev('ApprovalRejected', { by: 'approver', comment: 'too risky' }))).toMatch(
      /ApprovalRejected\s+by approver: too risky$/,
    );
    expect(eventLine(ev('InputReceived', { input: { city: 'Oslo' }, step_id: 'ask' }))).toMatch(
      /InputReceived\s+ask\s+answer: \{"city":"Oslo"\}$/,
    );
    expect(
      eventLine(ev('InputReceived', { input: 'Oslo', step_id: 'ask', answered_by: 'ada@example.com' })),
    ).toMatch(/InputReceived\s+ask\s+answer: "Oslo" — answered by “ada@example\.com”$/);
    expect(
      eventLine(
        ev('StepScheduled', {
          step_id: 'p',
          attempt: 3,
          action: 'demo.echo',
          fallback: true,
          dispatch: 'queue',
          deadline_at: 0,
        }),
      ),
    ).toMatch(/StepScheduled\s+p\s+fallback demo\.echo attempt 3$/);
    expect(
      eventLine(ev('StepSkipped', { step_id: 's', reason: 'when_false', detail: 'when: input.x' })),
    ).toMatch(/StepSkipped\s+s\s+when_false: when: input\.x$/);
    expect(eventLine(ev('RunResumed', { step_ids: ['a', 'b'] }))).toMatch(/RunResumed\s+reopens a, b$/);
  });
});
