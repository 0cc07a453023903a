import { describe, expect, it } from 'vitest';
import { callerViaOf, nameSourceOf } from '../../src/approval/name-source';

describe('how a name on a decision or an answer was established', () => {
  it('is the caller’s own authentication, except that a caller with none typed it on the link', () => {
    expect(nameSourceOf('anonymous', true)).toBe('link');
    expect(nameSourceOf('anonymous', false)).toBe('anonymous');
    // Access signed them in on the link too; an API token holder states the name whatever else they sent.
    expect(nameSourceOf('access', true)).toBe('access');
    expect(nameSourceOf('token', true)).toBe('token');
    expect(nameSourceOf('access', false)).toBe('access');
    expect(nameSourceOf('token', false)).toBe('token');
  });

  it('takes from the RPC only a caller the Worker can name: an older Worker’s none, or anything else, is unsaid', () => {
    expect(callerViaOf('access')).toBe('access');
    expect(callerViaOf('token')).toBe('token');
    expect(callerViaOf('anonymous')).toBe('anonymous');
    expect(callerViaOf(undefined)).toBeUndefined();
    // `link` is the run's to decide (it checks the link's token), never the Worker's to claim.
    expect(callerViaOf('link')).toBeUndefined();
    expect(callerViaOf({ via: 'access' })).toBeUndefined();
  });
});
