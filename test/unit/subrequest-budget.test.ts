import { describe, expect, it } from 'vitest';
import { SubrequestBudget, subrequestLimit } from '../../src/durable/subrequest-budget';
import { PLATFORM_LIMITS } from '../../src/platform-limits';

describe('subrequestLimit', () => {
  it('reads SUBREQUESTS_PER_INVOCATION, and falls back to the 1,000 KV and D1 allow an invocation', () => {
    expect(subrequestLimit({ SUBREQUESTS_PER_INVOCATION: '50' })).toBe(50);
    expect(subrequestLimit({ SUBREQUESTS_PER_INVOCATION: ' 10000 ' })).toBe(10_000);
    for (const v of [undefined, '', '0', '-5', '2.5', 'fifty'])
      expect(subrequestLimit({ SUBREQUESTS_PER_INVOCATION: v })).toBe(1000);
    expect(PLATFORM_LIMITS.kvOperationsPerInvocation.value).toBe(1000);
  });
});

describe('SubrequestBudget', () => {
  it('says how many more attempts fit once the running ones are kept room for', () => {
    const b = new SubrequestBudget(50);
    expect(b.room(4, 5)).toBe(11);
    b.spend(40);
    expect(b.room(4, 5)).toBe(1);
    b.spend(9);
    expect(b.room(4, 5)).toBe(0);
  });

  it('counts each call of the fetch it hands a tool', async () => {
    const b = new SubrequestBudget(50);
    const f = b.fetch(() => Promise.resolve(new Response('ok')));
    await f('https://example.com/a');
    await f('https://example.com/b');
    expect(b.spent).toBe(2);
  });
});
