import { describe, expect, it } from 'vitest';
import { replay, snapshotRun } from '../../src/engine/snapshot';
import { convertTeaYaml } from '../../src/import/tea-yaml';
import { harness } from './engine-helpers';

/** A TEA workflow converted to its plan (the importer is pure), then driven through the machine by hand. */
function workflow(source: string, input: Record<string, unknown> = {}) {
  const r = convertTeaYaml(source);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return harness(r.plan, { step_timeout: 60 }, input);
}

const LOOP = `nodes:
  - name: work
    uses: demo.echo
    with: { round: "{{ (state.round | default(0)) + 1 }}" }
    goto:
      - if: "state.round < 2"
        to: work
      - to: report
  - name: spare
    uses: demo.echo
  - name: report
    uses: demo.echo
    condition: "state.round > 5"
`;

describe('TEA graph runs in the pure machine', () => {
  it('enters one node at a time, decides the next from the state, and replays to the same state', () => {
    const h = workflow(LOOP);
    const running = () => h.inFlight().map((c) => (c.type === 'dispatch' ? `${c.step_id}:${c.attempt}` : ''));
    expect(running()).toEqual(['work:1']);
    h.ok('work', { round: 1 });
    expect(running()).toEqual(['work:2']);
    h.ok('work', { round: 2 });
    // report's condition is false: skipped, then __end__, and spare was never reached.
    expect(running()).toEqual([]);
    const snap = h.snapshot();
    expect(snap.status).toBe('completed');
    expect(snap.step_statuses).toEqual({ work: 'completed', spare: 'skipped', report: 'skipped' });
    expect(
      h.events
        .filter((e) => e.event_type === 'NodeEntered' || e.event_type === 'StepSkipped')
        .map((e) =>
          e.event_type === 'NodeEntered'
            ? `enter ${e.payload.node}#${e.payload.visit}`
            : `skip ${e.payload.step_id} (${e.payload.reason})`,
        ),
    ).toEqual([
      'enter work#1',
      'enter work#2',
      'enter report#1',
      'skip report (when_false)',
      'enter __end__#0',
      'skip spare (not_reached)',
    ]);
    const replayed = replay(h.events);
    expect(snapshotRun(replayed.state, replayed.results)).toEqual(snap);
    // As of the second entry of work, the state is the first visit's.
    const second = h.events.find((e) => e.event_type === 'NodeEntered' && e.payload.visit === 2)!;
    const then = replay(h.events, { at: second.seq });
    expect(snapshotRun(then.state, then.results).state).toEqual({ round: 1 });
    expect(then.state.steps.get('work')).toMatchObject({ status: 'pending', visit: 2, attempt: 1 });
  });

  it('stops a loop past max_iterations with the run failed', () => {
    const h = workflow(
      LOOP.replace('if: "state.round < 2"', 'if: "True"').replace('nodes:', 'max_iterations: 2\nnodes:'),
    );
    h.ok('work', { round: 1 });
    h.ok('work', { round: 2 });
    const snap = h.snapshot();
    expect(snap.status).toBe('failed');
    expect(snap.error).toMatchObject({ code: 'max_iterations' });
    expect(snap.error!.message).toContain('Node "work" would run a 3rd time, past max_iterations (2)');
  });
});
