import { describe, expect, it } from 'vitest';
import { estimateText } from '../../src/client';

describe('a plan’s estimates in one line', () => {
  it('counts steps, names the critical path and its time', () => {
    expect(estimateText({ step_count: 3, critical_path: { steps: ['a', 'b'], duration_ms: 1234 } })).toBe(
      '3 steps, critical path a → b (~1.23 s)',
    );
    expect(estimateText({ step_count: 1, critical_path: { steps: ['a'], duration_ms: 500 } })).toBe(
      '1 step, critical path a (~0.50 s)',
    );
  });

  it('leaves out a time nobody estimated instead of saying ~0.00 s', () => {
    expect(estimateText({ step_count: 2, critical_path: { steps: ['a', 'b'], duration_ms: 0 } })).toBe(
      '2 steps, critical path a → b',
    );
  });

  it('says an instant path in milliseconds (in seconds it read ~0.00 s on the approval page)', () => {
    expect(estimateText({ step_count: 2, critical_path: { steps: ['a', 'b'], duration_ms: 2 } })).toBe(
      '2 steps, critical path a → b (~2 ms)',
    );
    expect(estimateText({ step_count: 1, critical_path: { steps: ['a'], duration_ms: 0.4 } })).toBe(
      '1 step, critical path a (~1 ms)',
    );
    expect(estimateText({ step_count: 1, critical_path: { steps: ['a'], duration_ms: 10 } })).toBe(
      '1 step, critical path a (~0.01 s)',
    );
  });
});
