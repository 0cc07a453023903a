import { describe, expect, it } from 'vitest';
import { estimateTokens, estimateUsage } from '../../src/planner/token-estimate';

describe('token estimates for a stream cut off before its usage', () => {
  it('is 4 characters a token, rounded up, over the messages sent and the characters streamed', () => {
    expect([0, 1, 4, 5].map(estimateTokens)).toEqual([0, 1, 1, 2]);
    const messages = [
      { role: 'system' as const, content: 'x'.repeat(10) },
      { role: 'user' as const, content: 'y'.repeat(7) },
    ];
    expect(estimateUsage(messages, 9)).toEqual({ prompt: 5, completion: 3, estimated: true });
  });
});
