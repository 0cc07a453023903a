import { describe, expect, it } from 'vitest';
import { isStepYield, toStepStream } from '../../src/planner/contracts';
import type { PlanYield } from '../../src/planner/contracts';
import type { Plan, PlanStep } from '../../src/plan/model';

const step = (id: string): PlanStep => ({
  id,
  description: id,
  action: 'demo.echo',
  parameters: {},
  dependencies: [],
});
const plan: Plan = {
  id: 'plan_1',
  version: 1,
  goal: 'g',
  strategy: 'flat',
  steps: [step('a'), step('b')],
  created_at: 't',
};

async function collect(stream: AsyncIterable<PlanYield>): Promise<PlanYield[]> {
  const out: PlanYield[] = [];
  for await (const item of stream) out.push(item);
  return out;
}

describe('toStepStream', () => {
  it('turns a promised plan into its steps followed by finish with the plan', async () => {
    expect(await collect(toStepStream(Promise.resolve(plan)))).toEqual([
      step('a'),
      step('b'),
      { finish: { plan } },
    ]);
  });

  it('turns a promised single step (an iterative planner) into that step alone', async () => {
    expect(await collect(toStepStream(Promise.resolve(step('next'))))).toEqual([step('next')]);
  });

  it('passes a stream through unchanged, reasoning and finish included', async () => {
    async function* streaming(): AsyncIterable<PlanYield> {
      await Promise.resolve();
      yield { partialReasoning: 'thinking' };
      yield step('a');
      yield { finish: { result: 42 } };
    }
    const items = await collect(toStepStream(streaming()));
    expect(items).toEqual([{ partialReasoning: 'thinking' }, step('a'), { finish: { result: 42 } }]);
    expect(items.filter(isStepYield)).toEqual([step('a')]);
  });

  it('accepts a plain value as well as a promise', async () => {
    expect(await collect(toStepStream(plan))).toHaveLength(3);
  });
});
