/**
 * A run whose iterative turns `max_steps` stopped says so where a person reads how it ended: the CLI's
 * live view and event line, and the dashboard's ending — not a bare `success`. Plain Node.
 */
import { describe, expect, it } from 'vitest';
import { applyEvent, emptyView } from '../../src/client/run-view';
import { eventLine, PLAIN, renderLive } from '../../src/cli/render';
import { endingOf } from '../../src/ui/run-ending';
import { runEventBuilder } from './run-event-builder';

const message =
  'Stopped after 2 turns: the plan has max_steps (3) steps, all completed, so another turn could add none; raise max_steps to let the model go on';

function ended(limit: boolean) {
  const ev = runEventBuilder();
  return [
    ev('RunCreated', { run_id: 'run_1', goal: 'g', config: {}, input: null }),
    ev('PlanAuthored', {
      plan: { id: 'p', version: 1, goal: 'g', steps: [{ id: 'a', action: 'demo.echo' }] },
    }),
    ev('RunTerminated', {
      status: 'completed',
      reason: 'success',
      final_output: 1,
      ...(limit ? { limit: { setting: 'max_steps', value: 3, turns: 2, message } } : {}),
    }),
  ];
}

describe('a success a turn limit cut short', () => {
  it('is said by the live view, the event line and the dashboard’s ending', () => {
    const events = ended(true);
    const view = emptyView('run_1');
    for (const e of events) applyEvent(view, e);
    expect(view.limit_reached).toBe(message);
    expect(renderLive(view, 0, 0, PLAIN, 300)).toContain(` ⚠ ${message}`);
    expect(eventLine(events.at(-1)!)).toContain(`completed: success — ${message}`);
    expect(endingOf(events)).toEqual({ kind: 'limit', message });
  });

  it('is not said of a run its model ended', () => {
    const events = ended(false);
    const view = emptyView('run_1');
    for (const e of events) applyEvent(view, e);
    expect([view.limit_reached, endingOf(events)]).toEqual([null, null]);
    expect(renderLive(view, 0, 0, PLAIN, 300)).not.toContain('⚠');
  });
});
