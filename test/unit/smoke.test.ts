import { describe, expect, it } from 'vitest';
import { parseRunConfig } from '../../src/plan/config';

describe('run config', () => {
  it('accepts seed-001 aliases', () => {
    const c = parseRunConfig({ max_concurrent: 5, parallel: true, on_subtask_failure: 'skip' });
    expect(c.max_parallel).toBe(5);
    expect(c.execution_mode).toBe('parallel');
    expect(c.on_step_failure).toBe('skip');
  });
});
