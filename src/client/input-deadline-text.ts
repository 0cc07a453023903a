/**
 * When a `human.input` step's question is due and what happens then if nobody answers (a run view's
 * `waiting` for input: `deadline`, `if_unanswered`, `retries_left`), in words — the same in the
 * terminal and the dashboard, in UTC as the rest of both say times.
 * @example
 * inputDeadlineText({ deadline: '2026-12-02T10:37:00.000Z', if_unanswered: 'asked_again', retries_left: 2 });
 * // 'Answer by 2026-12-02 10:37 UTC: if nobody does, the step is asked again (2 retries left).'
 */
import { utcMinute } from './approval-deadline-text';
import type { RunView } from './run-view-types';

type Deadline = Pick<NonNullable<RunView['waiting']>, 'deadline' | 'if_unanswered' | 'retries_left'>;

/** `2 retries left`: the step's, when it asked (a timeout uses one to ask again). */
function left(w: Deadline): string {
  const n = w.retries_left ?? 1;
  return `${n} ${n === 1 ? 'retry' : 'retries'} left`;
}

/** What happens at the deadline: `the step is asked again (2 retries left)`, … */
function outcome(w: Deadline): string {
  switch (w.if_unanswered) {
    case 'asked_again':
      return `the step is asked again (${left(w)})`;
    case 'falls_back':
      return 'the step’s fallback runs';
    default:
      return 'the step fails';
  }
}

/** The sentence a person reads beside the question; null for one with no deadline. */
export function inputDeadlineText(w: Deadline | null | undefined): string | null {
  if (!w?.deadline) return null;
  return `Answer by ${utcMinute(w.deadline)}: if nobody does, ${outcome(w)}.`;
}

/**
 * `until 2026-12-02 10:37 UTC, then asked again, 2 retries left` (or `then the step fails`) — the
 * short form a status line holds in parentheses; null for none.
 */
export function inputDeadlineShort(w: Deadline | null | undefined): string | null {
  if (!w?.deadline) return null;
  const then = w.if_unanswered === 'asked_again' ? `asked again, ${left(w)}` : outcome(w);
  return `until ${utcMinute(w.deadline)}, then ${then}`;
}
