/**
 * `edgeplan watch`'s live frame of a run of thousands of steps: at most BIG_PLAN_ROWS step rows — the
 * step at work among them, and a line saying how many more there are and where they are all listed —
 * and a frame costs reads of the steps in proportion to their number, not its square (counted).
 */
import { expect, it } from 'vitest';
import { applyEvent, emptyView, type RunView } from '../../src/client/run-view';
import { BIG_PLAN_ROWS, PLAIN, renderLive } from '../../src/cli/render';
import { runEventBuilder } from './run-event-builder';

const N = 5000;

/** A chain of N steps, the first 3,000 completed and s3000 running. */
function halfwayChain(): RunView {
  const ev = runEventBuilder();
  const steps = Array.from({ length: N }, (_, i) => ({
    id: `s${i}`,
    action: 'demo.sleep',
    parameters: {},
    dependencies: i ? [`s${i - 1}`] : [],
  }));
  const view = emptyView('run_1');
  applyEvent(view, ev('RunCreated', { run_id: 'run_1', goal: 'a long chain', config: {}, input: null }));
  applyEvent(view, ev('PlanAuthored', { plan: { id: 'p', version: 1, goal: 'g', steps } }));
  applyEvent(view, ev('RunStarted', {}));
  for (let i = 0; i <= 3000; i++) {
    const step_id = `s${i}`;
    applyEvent(
      view,
      ev('ToolInvoked', {
        step_id,
        attempt: 1,
        tool: 'demo.sleep',
        parameters: {},
        idempotency_key: step_id,
      }),
    );
    if (i === 3000) break;
    applyEvent(view, ev('ToolReturned', { step_id, attempt: 1, success: true, output: i, latency_ms: 1 }));
    applyEvent(view, ev('StepCompleted', { step_id, output: i, latency_ms: 1 }));
  }
  return view;
}

it('draws at most BIG_PLAN_ROWS steps, the running one among them, and says how many more and where', () => {
  const view = halfwayChain();
  const lines = renderLive(view, Date.now(), 0, PLAIN, 120).split('\n');
  const rows = lines.filter((l) => /^ \S+ s\d+ /.test(l));
  expect(rows.length).toBeLessThanOrEqual(BIG_PLAN_ROWS);
  expect(rows.some((l) => l.includes(' s3000 '))).toBe(true);
  expect(lines).toContain(` … ${N - rows.length} more steps (edgeplan show run_1 lists every one)`);
  expect(lines.length).toBeLessThan(BIG_PLAN_ROWS + 20);
});

it('reads the steps in proportion to their number for a frame, not once per step per row', () => {
  const view = halfwayChain();
  let reads = 0;
  view.steps = new Proxy(view.steps, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  renderLive(view, Date.now(), 0, PLAIN, 120);
  expect(reads).toBeLessThan(20 * N);
});
