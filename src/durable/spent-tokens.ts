/**
 * A planning or revision's model tokens across the issues of its side-work row (side-work.ts): each
 * answered call is added to the row as it is recorded (planner/tallying-provenance.ts), so the calls
 * of an issue lost with its instance (a crash between the model's answer and its repair) still count
 * when a later issue answers — the run's `token_usage` and `token_budget` then see every call the
 * planning trace lists, once.
 */
import type { RunEvent } from '../engine/events';
import { chargeEnded } from '../engine/spent-tokens';
import type { RunState } from '../engine/state';
import type { SideRow } from './side-work-journal';

/**
 * The run ends in `events` while the planning or revision `rows` are still running (cancelled, failed,
 * a fault): what their issues had spent is charged to its `RunTerminated` (engine/spent-tokens.ts).
 * @example if (ended) chargeUnsettled(decided.events, machine.state, journal.all()); journal.drop(ids);
 */
export function chargeUnsettled(events: RunEvent[], state: RunState, rows: readonly SideRow[]): void {
  const spent = { prompt: 0, completion: 0 };
  for (const { task } of rows) {
    if ((task.type !== 'plan' && task.type !== 'revise') || !task.spent) continue;
    spent.prompt += task.spent.prompt;
    spent.completion += task.spent.completion;
  }
  chargeEnded(events, state, spent);
}
