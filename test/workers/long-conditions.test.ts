/**
 * A `when` condition is a caller's text of any length the body allows: a long chain of `||` or `&&` is
 * evaluated in the run object as a loop, not as nested calls — 20,000 terms once overflowed its stack,
 * and the run's decision threw instead of skipping the step.
 */
import { describe, expect, it } from 'vitest';
import { api, startRun, waitForRun } from './helpers';

const chain = (op: string, n: number) =>
  Array.from({ length: n }, (_, i) => `steps.a.output.n == ${i + 10}`).join(` ${op} `);

describe('long when conditions', () => {
  it.each([
    ['||', 'skipped'],
    ['&&', 'skipped'],
  ])('a chain of 20,000 %s terms is evaluated: the step is %s and the run completes', async (op, status) => {
    const runId = await startRun({
      steps: [
        { id: 'a', action: 'demo.echo', parameters: { n: 1 } },
        { id: 'b', action: 'demo.echo', parameters: {}, when: chain(op, 20_000) },
        {
          id: 'c',
          action: 'demo.echo',
          parameters: {},
          when: `${chain(op, 20_000)} ${op} steps.a.output.n == 1`,
        },
      ],
    });
    const run = await waitForRun(runId);
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    expect(run.step_statuses).toEqual({
      a: 'completed',
      b: status,
      c: op === '||' ? 'completed' : 'skipped',
    });
    expect((await api('GET', `/v1/runs/${runId}/events`)).status).toBe(200);
  });
});
