import { describe, expect, it } from 'vitest';
import { MAX_WAIT_S } from '../../src/plan/limits';
import { PlanInputSchema } from '../../src/plan/model';
import { isPlainPlanInput } from '../../src/plan/plan-shape';

const step = { id: 'a', action: 'llm.call', parameters: { prompt: 'x' }, dependencies: [] };

const samples: unknown[] = [
  { steps: [] },
  { steps: [step] },
  { goal: 'g', strategy: 'flat', version: 2, id: 'p', created_at: 'now', metadata: { a: 1 }, steps: [step] },
  { steps: [{ id: 'a' }] },
  { steps: [{ ...step, fallback_action: 'x' }] },
  { steps: [{ ...step, fallback_action: { action: 'x', parameters: {} } }] },
  { steps: [{ ...step, fallback_action: { action: 'x', extra: 1 } }] },
  { steps: [{ ...step, fallback_action: { action: '' } }] },
  { steps: [{ ...step, subplan: { steps: [step] } }] },
  { steps: [{ ...step, subplan: { steps: [{ id: 'bad id' }] } }] },
  { steps: [{ ...step, unknown_key: 1 }] },
  { steps: [{ ...step, id: 'x'.repeat(65) }] },
  { steps: [{ ...step, id: '' }] },
  { steps: [{ ...step, action: '' }] },
  { steps: [{ ...step, parameters: null, dependencies: null, when: null, output_path: null }] },
  { steps: [{ ...step, parameters: [] }] },
  { steps: [{ ...step, dependencies: ['a', 1] }] },
  { steps: [{ ...step, estimated_tokens: 1.5 }] },
  { steps: [{ ...step, estimated_tokens: -1 }] },
  { steps: [{ ...step, timeout_ms: 0 }] },
  { steps: [{ ...step, timeout_ms: MAX_WAIT_S * 1000 + 1 }] },
  { steps: [{ ...step, subplan: { steps: [{ ...step, timeout_ms: 1e13 }] } }] },
  { steps: [{ ...step, retries: 0 }] },
  { steps: [{ ...step, retries: 1e6 }] },
  { steps: [{ ...step, when: '' }] },
  { steps: [step], strategy: 'other' },
  { steps: [step], version: 0 },
  { steps: [step], estimated_total_tokens: null },
  { steps: [step], success_criteria: null },
  { steps: [step], metadata: [] },
  { steps: [step], id: '' },
  { steps: 'nope' },
  { steps: [null] },
  [],
  null,
  'plan',
];

describe('the fast plan-shape check', () => {
  it.each(samples.map((s) => [JSON.stringify(s), s]))(
    'never accepts what the schema rejects: %s',
    (_, sample) => {
      expect(!isPlainPlanInput(sample) || PlanInputSchema.safeParse(sample).success).toBe(true);
    },
  );

  it('accepts the common shapes, so large plans skip zod', () => {
    for (const s of samples.slice(0, 6)) expect(isPlainPlanInput(s)).toBe(true);
    expect(isPlainPlanInput(samples[8])).toBe(true);
  });
});
