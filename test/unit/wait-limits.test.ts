/** Every wait a run can be told to make is at most MAX_WAIT_S, so its deadline is a date an alarm takes. */
import { describe, expect, it } from 'vitest';
import { RunConfigInputSchema } from '../../src/http/schemas/config';
import { MAX_WAIT_S } from '../../src/plan/limits';
import { PlanStepInputSchema } from '../../src/plan/model';
import { harness } from './engine-helpers';
import { toolsNamed, validate } from './import-helpers';

const issuePaths = (raw: unknown) =>
  RunConfigInputSchema.safeParse(raw).error?.issues.map((i) => i.path.join('.')) ?? [];

describe('wait limits', () => {
  it('accepts a year and refuses more, for step_timeout, retry_delay and approval.timeout_s', () => {
    const year = { step_timeout: MAX_WAIT_S, retry_delay: MAX_WAIT_S, approval: { timeout_s: MAX_WAIT_S } };
    expect(issuePaths(year)).toEqual([]);
    for (const more of [MAX_WAIT_S + 1, 1e10, 1e308]) {
      const config = { step_timeout: more, retry_delay: more, approval: { timeout_s: more } };
      expect(issuePaths(config)).toEqual(['step_timeout', 'retry_delay', 'approval.timeout_s']);
    }
  });

  it('says the unit and the limit when it refuses a wait', () => {
    const messages = (raw: unknown) =>
      RunConfigInputSchema.safeParse(raw).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(
      messages({
        step_timeout: 1e10,
        retry_delay: 1e10,
        approval: { timeout_s: 1e10 },
        planning_timeout_s: 1e4,
      }),
    ).toEqual([
      'step_timeout: must be at most 31536000 seconds (a year)',
      'planning_timeout_s: must be at most 3600 seconds (an hour)',
      'retry_delay: must be at most 31536000 seconds (a year)',
      'approval.timeout_s: must be at most 31536000 seconds (a year)',
    ]);
    expect(messages({ step_timeout: 0, retry_delay: -1, approval: { timeout_s: -5 } })).toEqual([
      'step_timeout: must be more than 0 seconds',
      'retry_delay: must be at least 0 seconds',
      'approval.timeout_s: must be more than 0 seconds',
    ]);
    const step = (timeout_ms: number) =>
      PlanStepInputSchema.safeParse({ id: 'a', timeout_ms }).error?.issues.map((i) => i.message);
    expect(step(1e13)).toEqual(['must be at most 31536000000 milliseconds (a year)']);
    expect(step(0)).toEqual(['must be more than 0 milliseconds']);
  });

  it('refuses a step timeout_ms over a year', () => {
    const step = { id: 'a', action: 'demo.echo' };
    expect(PlanStepInputSchema.safeParse({ ...step, timeout_ms: MAX_WAIT_S * 1000 }).success).toBe(true);
    expect(PlanStepInputSchema.safeParse({ ...step, timeout_ms: MAX_WAIT_S * 1000 + 1 }).success).toBe(false);
  });

  it('refuses a step timeout_ms over a year in a plan as a run is given it, naming the step and the field', () => {
    // A plan of the common shape skips zod (plan-shape.ts): that path let 1e13 through, and the run's
    // object then threw on every alarm ("dates after 2189").
    const plan = { steps: [{ id: 'a', action: 'demo.echo', parameters: {}, timeout_ms: 1e13 }] };
    const result = validate(plan, toolsNamed('demo.echo'));
    expect(result.valid).toBe(false);
    expect(result.errors.map((f) => [f.code, f.step_id, f.message])).toEqual([
      ['schema', 'a', expect.stringContaining('steps[0].timeout_ms')],
    ]);
  });

  it('refuses more than 100 retries for a step, as for the run', () => {
    const plan = (retries: number) => ({
      steps: [{ id: 'a', action: 'demo.echo', parameters: {}, retries }],
    });
    expect(validate(plan(100), toolsNamed('demo.echo')).valid).toBe(true);
    const refused = validate(plan(1e6), toolsNamed('demo.echo'));
    expect(refused.errors.map((f) => [f.code, f.step_id, f.message])).toEqual([
      ['schema', 'a', 'steps[0].retries: must be at most 100'],
    ]);
    expect(issuePaths({ retry_failed_steps: 101 })).toEqual(['retry_failed_steps']);
  });

  it('stops doubling the retry delay at the limit', () => {
    const h = harness(
      { steps: [{ id: 'a', action: 'demo.echo', dependencies: [] }] },
      { retry_failed_steps: 100, retry_delay: MAX_WAIT_S / 2 },
    );
    const delays: number[] = [];
    for (let i = 0; i < 60; i++) {
      h.fail('a');
      const last = h.events.filter((e) => e.event_type === 'StepRetried').at(-1);
      delays.push((last?.payload as { delay_ms: number }).delay_ms);
      h.advance(MAX_WAIT_S * 1000);
    }
    expect(delays.slice(0, 3)).toEqual([MAX_WAIT_S * 500, MAX_WAIT_S * 1000, MAX_WAIT_S * 1000]);
    expect(Math.max(...delays)).toBe(MAX_WAIT_S * 1000);
    expect(h.machine.nextWakeAt()).toBeLessThanOrEqual(h.now() + MAX_WAIT_S * 1000);
  });
});
