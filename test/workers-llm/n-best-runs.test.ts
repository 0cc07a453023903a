/**
 * `n_best` on an eager goal run (SPEC §3 "optional N-best with a verifier", §8 a goal run's planning
 * options): the run asks the model for that many whole plans and runs the one the verifier keeps —
 * it does not stream one plan and run it as it arrives, which would leave the option unused.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { api, waitForRun } from '../workers/helpers';

afterEach(() => setLlmFetch(null));

const plan = (steps: unknown[]) => JSON.stringify({ steps });
const echo = (id: string, dependencies: string[] = []) => ({
  id,
  action: 'demo.echo',
  parameters: { id },
  dependencies,
});

describe('n_best on an eager goal run', () => {
  it('plans two whole candidates and runs the one the verifier keeps (the shorter critical path)', async () => {
    const llm = scriptedLlm([
      plan([echo('x'), echo('y', ['x']), echo('z', ['y'])]),
      plan([echo('p'), echo('q'), echo('r')]),
    ]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', { goal: 'echo three times', n_best: 2 });
    expect(r.status).toBe(201);
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect(llm.sent).toHaveLength(2);
    expect(llm.sent.every((x) => x.body.stream !== true)).toBe(true);
    expect(Object.keys(run.step_results).sort()).toEqual(['p', 'q', 'r']);
  });
});
