import { describe, expect, it } from 'vitest';
import {
  applyEvent,
  emptyView,
  inputDeadlineShort,
  inputDeadlineText,
  type RunEvent,
} from '../../src/client';

const deadline = '2026-12-02T10:37:59.999Z';

describe('inputDeadlineText', () => {
  it('says when a question is due, in UTC, and what happens then if nobody answers', () => {
    expect(inputDeadlineText({ deadline, if_unanswered: 'asked_again', retries_left: 2 })).toBe(
      'Answer by 2026-12-02 10:37 UTC: if nobody does, the step is asked again (2 retries left).',
    );
    expect(inputDeadlineText({ deadline, if_unanswered: 'asked_again', retries_left: 1 })).toBe(
      'Answer by 2026-12-02 10:37 UTC: if nobody does, the step is asked again (1 retry left).',
    );
    expect(inputDeadlineText({ deadline, if_unanswered: 'falls_back', retries_left: 0 })).toBe(
      'Answer by 2026-12-02 10:37 UTC: if nobody does, the step’s fallback runs.',
    );
    expect(inputDeadlineText({ deadline, if_unanswered: 'step_fails', retries_left: 0 })).toBe(
      'Answer by 2026-12-02 10:37 UTC: if nobody does, the step fails.',
    );
  });

  it('has a short form for a status line, and nothing to say without a deadline', () => {
    expect(inputDeadlineShort({ deadline, if_unanswered: 'step_fails', retries_left: 0 })).toBe(
      'until 2026-12-02 10:37 UTC, then the step fails',
    );
    expect(inputDeadlineShort({ deadline, if_unanswered: 'asked_again', retries_left: 2 })).toBe(
      'until 2026-12-02 10:37 UTC, then asked again, 2 retries left',
    );
    expect(inputDeadlineShort({})).toBeNull();
    expect(inputDeadlineText({})).toBeNull();
    expect(inputDeadlineText(null)).toBeNull();
  });
});

describe('a run view waiting for input', () => {
  const asked = (payload: Record<string, unknown>) => {
    const view = emptyView('run_1');
    const e = {
      seq: 7,
      event_type: 'InputRequested',
      timestamp: '2026-12-01T10:37:00.000Z',
      references: { step_id: 'q' },
      payload: { reason: 'Ship it?', step_id: 'q', prompt: 'Ship it?', ...payload },
    } as unknown as RunEvent;
    applyEvent(view, e);
    return view.waiting;
  };

  it('carries the question’s deadline and what happens then', () => {
    const waiting = asked({ deadline, if_unanswered: 'asked_again', retries_left: 2 });
    expect(waiting).toMatchObject({ kind: 'input', deadline, if_unanswered: 'asked_again', retries_left: 2 });
    expect(inputDeadlineText(waiting)).toContain('asked again');
  });

  it('reads a question recorded before deadlines were: no deadline, nothing said', () => {
    const waiting = asked({});
    expect(waiting).toMatchObject({ kind: 'input', prompt: 'Ship it?', question_seq: 7 });
    expect(waiting).not.toHaveProperty('deadline');
    expect(inputDeadlineText(waiting)).toBeNull();
  });
});
