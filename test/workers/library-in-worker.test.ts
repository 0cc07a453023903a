import { describe, expect, it } from 'vitest';
import * as parallel from '../../examples/parallel';
import { defineTool, PlanningPattern, replay, snapshotRun } from '../../src/index';
import { z } from 'zod';

const double = defineTool({
  name: 'double',
  description: 'Doubles a number',
  version: '1',
  input: z.object({ n: z.number() }),
  output: z.object({ n: z.number() }),
  idempotent: true,
  deterministic: true,
  run: ({ n }) => Promise.resolve({ n: n * 2 }),
});

describe('the library inside the Workers runtime', () => {
  it('executes a plan in process with in-memory state, and its events replay to the same state', async () => {
    const pattern = new PlanningPattern({ executionMode: 'parallel' });
    const result = await pattern.executePlan(
      { tools: [double] },
      {
        id: 'plan_w',
        version: 1,
        goal: 'double twice',
        strategy: 'manual',
        created_at: new Date().toISOString(),
        steps: [
          { id: 'a', description: 'x2', action: 'double', parameters: { n: 2 }, dependencies: [] },
          {
            id: 'b',
            description: 'x2 again',
            action: 'double',
            parameters: { n: '{{ steps.a.output.n }}' },
            dependencies: [],
          },
        ],
      },
    );
    expect(result).toMatchObject({ success: true, output: { n: 8 } });
    const folded = replay(result.events);
    expect(snapshotRun(folded.state, folded.results).step_results).toEqual(result.executionState.stepResults);
  });

  it('runs seed 000 §5.3 (parallel, continueOnFailure) as it does in Node', async () => {
    const result = await parallel.main({ log: () => undefined, ask: () => Promise.resolve('y') });
    expect(Object.values(result.stepResults).filter((r) => r.success)).toHaveLength(9);
  });
});
