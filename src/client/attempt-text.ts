/**
 * Which attempt a step is on, in words — the same in the dashboard's graph and step panel and in the
 * CLI. A step's attempts are numbered over the whole run, so after a retry or a re-run "attempt 3"
 * read as a third try of this round; these say the round's count, its limit and the round itself.
 * @example attemptText(step) // 'attempt 1 of up to 2 in retry 1 (#3 of the step)'
 */
import type { StepView } from './run-view-types';

type Counted = Pick<StepView, 'attempts' | 'round' | 'attempt_limit'>;

/** Attempts in the step's current round (all of them in its first); 0 before the round starts. */
export function roundAttempts(s: Counted): number {
  const first = s.round ? s.round.first_attempt : 1;
  return first === null ? 0 : Math.max(0, s.attempts - first + 1);
}

/** The round the step runs in, in words ('retry 1', 'the re-run under v2'); empty for its first. */
export function roundText(s: Counted): string {
  if (!s.round) return '';
  if (s.round.kind === 'retry') return `retry ${s.round.retry}`;
  return `the re-run under v${s.round.plan_version ?? '?'}`;
}

/**
 * The attempt it is on: 'attempt 2' in its first round once it retried, 'attempt 1 of up to 2 in
 * retry 1 (#3 of the step)' in a later round; empty for a first round's first attempt or no attempt.
 */
export function attemptText(s: Counted): string {
  const n = roundAttempts(s);
  if (!s.round) return s.attempts > 1 ? `attempt ${s.attempts}` : '';
  if (n === 0) return '';
  const limit = s.attempt_limit === null ? '' : ` of up to ${s.attempt_limit}`;
  return `attempt ${n}${limit} in ${roundText(s)} (#${s.attempts} of the step)`;
}

/**
 * The graph node's short badge: '×3' for a first round's three attempts, '↻1/2' for the first of up
 * to two in a retry or re-run (its full words in `attemptText`); empty when there is nothing to say.
 */
export function attemptBadge(s: Counted): string {
  if (!s.round) return s.attempts > 1 ? `×${s.attempts}` : '';
  const n = roundAttempts(s);
  if (n === 0) return '';
  return `↻${n}${s.attempt_limit === null ? '' : `/${s.attempt_limit}`}`;
}
