/**
 * `MAX_CHILD_RUNS`: an operator sets how many child runs one run's tree may start (this project's
 * Worker has 3). A plan that fans out over four items gets three children; the fourth step fails
 * `child_run_limit`, naming the limit and the variable that sets it.
 */
import { describe, expect, it } from 'vitest';
import { startRun, waitForRun } from '../workers/helpers';

describe("MAX_CHILD_RUNS, the operator's bound on a tree's child runs", () => {
  it('starts as many child runs as it says, and refuses the next naming it', async () => {
    const child = { steps: [{ id: 'c', action: 'demo.echo', parameters: { v: 1 } }] };
    const items = ['a', 'b', 'c', 'd'];
    const runId = await startRun({
      steps: items.map((id, i) => ({
        id,
        action: 'agent.dispatch',
        parameters: { plan: child },
        // One after another, so which step is refused is known: the fourth.
        dependencies: i === 0 ? [] : [items[i - 1]!],
      })),
    });
    const run = await waitForRun(runId, undefined, 60_000);
    expect(items.slice(0, 3).map((id) => run.steps[id].status)).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    expect(run.steps.d.status).toBe('failed');
    expect(run.steps.d.error).toMatchObject({ code: 'child_run_limit', retryable: false });
    expect(run.steps.d.error.message).toContain(
      "have started 3 child runs, the most one run's tree may (3, the Worker's MAX_CHILD_RUNS)",
    );
  });
});
