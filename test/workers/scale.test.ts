import { describe, expect, it } from 'vitest';
import { events, startRun, waitForRun } from './helpers';

describe('scale', () => {
  it('runs a 2,000-step chain to completion, one step at a time', async () => {
    const steps = Array.from({ length: 2000 }, (_, i) => ({
      id: `s${i}`,
      action: 'demo.echo',
      parameters: { i, prev: i ? `{{ steps.s${i - 1}.output.i }}` : null },
    }));
    const runId = await startRun({ steps }, { max_steps: 2000 });
    const run = await waitForRun(runId, undefined, 60_000);
    expect(run.status).toBe('completed');
    expect(run.counts).toMatchObject({ total: 2000, completed: 2000 });
    expect(run.step_results.s1999).toEqual({ i: 1999, prev: 1998 });
  }, 90_000);

  it('runs a 2,000-step parallel DAG (40 layers × 50) with at most max_parallel steps at once', async () => {
    const steps = [];
    for (let l = 0; l < 40; l++) {
      for (let w = 0; w < 50; w++) {
        steps.push({
          id: `s${l}_${w}`,
          action: 'demo.echo',
          parameters: { l, w },
          dependencies: l ? [`s${l - 1}_${w}`] : [],
        });
      }
    }
    const runId = await startRun(
      { steps },
      { execution_mode: 'parallel', max_parallel: 25, max_steps: 2000 },
    );
    const run = await waitForRun(runId, undefined, 60_000);
    expect(run.status).toBe('completed');
    expect(run.counts.completed).toBe(2000);
    // Replaying the trace, never more than max_parallel steps were running at once.
    let running = 0;
    let peak = 0;
    let after = 0;
    for (;;) {
      const page = await events(runId, after);
      if (page.length === 0) break;
      for (const e of page) {
        if (e.event_type === 'StepScheduled') peak = Math.max(peak, ++running);
        if (e.event_type === 'ToolReturned') running -= 1;
      }
      after = page.at(-1)!.seq as number;
    }
    expect(peak).toBe(25);
  }, 90_000);
});
