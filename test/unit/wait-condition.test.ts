import { describe, expect, it } from 'vitest';
import { reached, WAIT_UNTIL } from '../../src/http/wait-condition';
import { RunStatus } from '../../src/plan/model';

describe('what a wait for a run waits for', () => {
  it('ends every wait once the run ended', () => {
    for (const status of ['completed', 'failed', 'aborted', 'cancelled'] as const)
      for (const until of WAIT_UNTIL) expect(reached(until, { status, last_seq: 5 }, 5), until).toBe(true);
  });

  it('waits for a person only in awaiting_approval and awaiting_input', () => {
    const waiting = Object.values(RunStatus).filter((s) => reached('waiting', { status: s, last_seq: 1 }, 1));
    expect(waiting.sort()).toEqual([
      'aborted',
      'awaiting_approval',
      'awaiting_input',
      'cancelled',
      'completed',
      'failed',
    ]);
  });

  it('counts a change from the seq given, and no other', () => {
    expect(reached('any_change', { status: 'running', last_seq: 7 }, 7)).toBe(false);
    expect(reached('any_change', { status: 'running', last_seq: 8 }, 7)).toBe(true);
    expect(reached('terminal', { status: 'awaiting_input', last_seq: 8 }, 7)).toBe(false);
  });
});
