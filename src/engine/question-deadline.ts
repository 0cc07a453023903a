/**
 * When a `human.input` step's question is due, and what happens then if nobody answers: the instant
 * its attempt times out (the attempt's deadline — the step's `timeout_ms`, else the tool's own limit
 * of a day), after which the step is asked again while it has a retry left, else its fallback runs,
 * else it fails. Recorded on the question's `InputRequested`, so whoever answers it is told.
 */
import type { InputDeadline } from './events';
import type { RunState } from './state';
import { retriesLeft, stepDef } from './step-definition';

/**
 * The deadline of step `id`'s running attempt, as its question says it; null when the attempt has
 * none (it always has one while it runs).
 * @example questionDeadline(state, 'ask'); // { deadline: '2026-12-02T10:37:00.000Z', if_unanswered: 'asked_again', retries_left: 2 }
 */
export function questionDeadline(state: RunState, id: string): InputDeadline | null {
  const rt = state.steps.get(id);
  // The timer the attempt times out at (decide.ts), which is its deadline_at while it runs.
  const at = rt?.status === 'running' ? state.timers.get(id) : undefined;
  if (!rt || at === undefined) return null;
  const step = stepDef(state, id);
  // As decideFailures settles the attempt's timeout (a retryable error, no Retry-After to outwait).
  const retries_left = retriesLeft(state, step, rt);
  const if_unanswered =
    retries_left > 0
      ? 'asked_again'
      : step.fallback_action && !rt.fallback_used
        ? 'falls_back'
        : 'step_fails';
  return { deadline: new Date(at).toISOString(), if_unanswered, retries_left };
}
