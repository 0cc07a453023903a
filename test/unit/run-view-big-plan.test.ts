/**
 * The run view of a big plan folds each event in time independent of the plan's size: a step's
 * event finds its step without reading the plan through. Counted, not timed — every read of an
 * element of `view.steps` while 2,000 steps' events are folded.
 */
import { expect, it } from 'vitest';
import type { RunEvent } from '../../src/client';
import { applyEvent, emptyView } from '../../src/client/run-view';
import { runEventBuilder } from './run-event-builder';

const N = 2000;

it('reads the plan’s steps a bounded number of times per event, not once per step per event', () => {
  const ev = runEventBuilder();
  const steps = Array.from({ length: N }, (_, i) => ({ id: `s${i}`, action: 'demo.echo', parameters: {} }));
  const view = emptyView('run_1');
  applyEvent(view, ev('RunCreated', { run_id: 'run_1', goal: 'g', config: {}, input: null }));
  applyEvent(view, ev('PlanAuthored', { plan: { id: 'p', version: 1, goal: 'g', steps } }));
  applyEvent(view, ev('RunStarted', {}));
  // Every read of an element (view.steps[i], as find, map and for…of make them) is counted.
  let reads = 0;
  view.steps = new Proxy(view.steps, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  const events: RunEvent[] = steps.flatMap((s, i) => [
    ev('ToolInvoked', {
      step_id: s.id,
      attempt: 1,
      tool: 'demo.echo',
      parameters: {},
      idempotency_key: `k${i}`,
    }),
    ev('ToolReturned', { step_id: s.id, attempt: 1, success: true, output: i, latency_ms: 1 }),
    ev('StepCompleted', { step_id: s.id, output: i, latency_ms: 1 }),
  ]);
  for (const e of events) applyEvent(view, e);
  expect(view.steps.filter((s) => s.status === 'completed').length).toBe(N);
  // The filter above read each once; the fold at most a few times each (an index built once).
  expect(reads).toBeLessThan(5 * N);
});
