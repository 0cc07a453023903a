/**
 * How a name on a decision or an answer was established, in words, wherever the name is shown: the
 * event lines (terminal and dashboard), `edgeplan show`'s decision and step rows — a verified identity
 * told apart from a label typed on the link or stated with the API token, and an event recorded before
 * the field existed shown as before.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/client';
import { decidedText, deciderText } from '../../src/client/approval-changes-text';
import { namedText, nameSourceNote, nameSourceWords } from '../../src/client/name-source-text';
import { applyEvent, emptyView, type RunView } from '../../src/client/run-view';
import { decisionLines, eventLine } from '../../src/cli/render';
import { runEventBuilder } from './run-event-builder';

const ev = runEventBuilder();
const fold = (events: RunEvent[]): RunView => {
  const view = emptyView('run_1');
  for (const e of events) applyEvent(view, e);
  return view;
};
const plan = {
  id: 'p',
  version: 1,
  goal: 'g',
  steps: [{ id: 'ask', action: 'human.input', parameters: {} }],
};

describe('how a name was established, in words', () => {
  it('names each source, and nothing for an event without one or with one this release does not know', () => {
    expect(nameSourceWords('access')).toBe('verified by Access');
    expect(nameSourceWords('token')).toBe('given with the API token');
    expect(nameSourceWords('link')).toBe('typed on the approval link');
    expect(nameSourceWords('anonymous')).toBe('given without signing in');
    for (const unknown of [undefined, null, 'sso', 'toString', 7]) {
      expect([unknown, nameSourceWords(unknown), nameSourceNote(unknown)]).toEqual([unknown, null, '']);
    }
  });

  it('shows a verified identity as it is and any other name quoted, as given', () => {
    expect(namedText('ada@example.com', 'access')).toBe('ada@example.com (verified by Access)');
    expect(namedText('Ada', 'link')).toBe('“Ada” (typed on the approval link)');
    expect(namedText('Ada', 'token')).toBe('“Ada” (given with the API token)');
    expect(namedText('Ada', undefined)).toBe('“Ada”');
  });

  it('says who decided and how their name was established; an older decision as before', () => {
    expect(deciderText({ by: 'approver', approver: 'Ada', approver_via: 'link' })).toBe(
      '“Ada” (typed on the approval link)',
    );
    expect(deciderText({ by: 'approver', approver: 'Ada' })).toBe('“Ada”');
    expect(deciderText({ by: 'approver' })).toBe('the approver');
    // How a decision came, when nobody put a name to it: never "by the approver".
    expect(decidedText({ by: 'approver', approver_via: 'link' })).toBe('from the approval link');
    expect(decidedText({ by: 'approver', approver_via: 'token' })).toBe('with the API token');
    expect(decidedText({ by: 'approver', approver_via: 'anonymous' })).toBe(
      'through the API without a token',
    );
    expect(decidedText({ by: 'approver' })).toBe('');
    expect(decidedText({ by: 'approver', approver: 'Ada', approver_via: 'link' })).toBe(
      'by “Ada” (typed on the approval link)',
    );
    expect(decidedText({ by: 'timeout' })).toBe('when the approval deadline passed (its default action)');
    const viaLink = fold([
      ev('PlanAuthored', { plan }),
      ev('ApprovalRequested', { deadline_at: null, plan_version: 1 }),
      ev('ApprovalGranted', { by: 'approver', approver_via: 'link', comment: 'ok' }),
    ]);
    expect(decisionLines(viaLink)).toEqual(['approved from the approval link: ok']);
    expect(eventLine(ev('ApprovalGranted', { by: 'approver', approver_via: 'link' }))).toMatch(
      /ApprovalGranted\s+by approver \(from the approval link\)$/,
    );
    const verified = fold([
      ev('PlanAuthored', { plan }),
      ev('ApprovalRequested', { deadline_at: null, plan_version: 1 }),
      ev('ApprovalGranted', { by: 'approver', approver: 'ada@example.com', approver_via: 'access' }),
    ]);
    expect(decisionLines(verified)).toEqual(['approved by ada@example.com (verified by Access)']);
    const typed = fold([
      ev('PlanAuthored', { plan }),
      ev('ApprovalRequested', { deadline_at: null, plan_version: 1 }),
      ev('ApprovalRejected', { by: 'approver', approver: 'Olga', approver_via: 'link', comment: 'no' }),
    ]);
    expect(decisionLines(typed)).toEqual(['rejected by “Olga” (typed on the approval link): no']);
  });

  it('puts the name and its source in the event lines, and leaves an event without a name as it was', () => {
    expect(
      eventLine(
        ev('ApprovalGranted', { by: 'approver', approver: 'Olga', approver_via: 'link', comment: 'ok' }),
      ),
    ).toMatch(/ApprovalGranted\s+by approver “Olga” \(typed on the approval link\): ok$/);
    expect(
      eventLine(
        ev('ApprovalGranted', { by: 'approver', approver: 'ada@example.com', approver_via: 'access' }),
      ),
    ).toMatch(/ApprovalGranted\s+by approver ada@example\.com \(verified by Access\)$/);
    expect(eventLine(ev('ApprovalGranted', { by: 'approver', comment: 'ok' }))).toMatch(
      /ApprovalGranted\s+by approver: ok$/,
    );
    expect(
      eventLine(
        ev('InputReceived', { input: 'Oslo', step_id: 'ask', answered_by: 'Ada', answered_by_via: 'token' }),
      ),
    ).toMatch(/InputReceived\s+ask\s+answer: "Oslo" — answered by “Ada” \(given with the API token\)$/);
    expect(
      eventLine(
        ev('InputReceived', {
          input: 'Oslo',
          step_id: 'ask',
          answered_by: 'ada@example.com',
          answered_by_via: 'access',
        }),
      ),
    ).toMatch(/answer: "Oslo" — answered by ada@example\.com \(verified by Access\)$/);
    // Recorded before answered_by_via existed: a label nobody verified, quoted as an approver's is.
    expect(eventLine(ev('InputReceived', { input: 'Oslo', step_id: 'ask', answered_by: 'Ada' }))).toMatch(
      /answer: "Oslo" — answered by “Ada”$/,
    );
  });

  it('keeps how the answerer’s name was established on the step, and not past the next answer', () => {
    const events = [
      ev('PlanAuthored', { plan }),
      ev('InputRequested', { reason: 'human.input', step_id: 'ask', prompt: 'Ship?' }),
      ev('InputReceived', {
        input: 'yes',
        step_id: 'ask',
        answered_by: 'ada@example.com',
        answered_by_via: 'access',
      }),
    ];
    expect(fold(events).steps[0]).toMatchObject({
      answered_by: 'ada@example.com',
      answered_by_via: 'access',
    });
    const again = fold([...events, ev('InputReceived', { input: 'no', step_id: 'ask', answered_by: 'Bob' })]);
    expect(again.steps[0]?.answered_by_via).toBeUndefined();
  });
});
