import { describe, expect, it } from 'vitest';
import { CALL_BUDGET, CallBudget, groupsOf, Handoff, reportable } from '../../src/durable/call-limits';
import type { BeginStep, Continuation } from '../../src/durable/plan-run';

const begun = (length: number): BeginStep => ({
  proceed: true,
  action: 'demo.echo',
  parameters: {},
  idempotency_key: 'r:s:1',
  timeout_ms: 1000,
  limit_ms: 1000,
  parameters_length: length,
  max_output_bytes: 1024 * 1024,
});

describe('call limits', () => {
  it('splits reports into calls of about the budget, a larger one alone, in order', () => {
    const half = CALL_BUDGET / 2;
    const groups = groupsOf([1, half, half, 1, 3 * CALL_BUDGET, 5], (n) => n);
    expect(groups).toEqual([[1, half], [half, 1], [3 * CALL_BUDGET], [5]]);
    expect(groupsOf([], (n: number) => n)).toEqual([]);
  });

  it('turns an output over the run’s limit into output_too_large before it travels', () => {
    const big = reportable('s', { success: true, output: 'x'.repeat(2000), latency_ms: 3 }, 1024);
    expect(big.outcome).toMatchObject({ success: false, error: { code: 'output_too_large' }, latency_ms: 3 });
    const small = reportable('s', { success: true, output: { a: 1 }, latency_ms: 3 }, 1024);
    expect(small).toEqual({ outcome: { success: true, output: { a: 1 }, latency_ms: 3 }, length: 7 });
  });

  it('hands out begun attempts until a reply is full, then asks for the rest again', () => {
    const reply = new CallBudget();
    const fits = [reply.fit(begun(CALL_BUDGET - 1)), reply.fit(begun(10)), reply.fit(begun(10))];
    expect(fits.map((b) => b.proceed)).toEqual([true, true, false]);
    expect(fits[2]).toMatchObject({ proceed: false, retry: true });
    expect(reply.fit({ proceed: false, reason: 'gone' })).toEqual({ proceed: false, reason: 'gone' });
  });

  it('takes continuations while there is room and budget', () => {
    const handoff = new Handoff(3);
    const c = (length: number) => ({ step_id: 's', attempt: 1, ...begun(length) }) as Continuation;
    handoff.take(c(CALL_BUDGET));
    expect(handoff.wants()).toBe(false);
    const roomy = new Handoff(2);
    roomy.take(c(1));
    roomy.take(c(1));
    expect(roomy.wants()).toBe(false);
    expect(new Handoff(0).wants()).toBe(false);
  });
});
