import { describe, expect, it } from 'vitest';
import { nearestKey } from '../../src/plan/key-suggestions';

describe('nearestKey', () => {
  it('counts two swapped neighbouring letters as one edit, the commonest slip', () => {
    expect(nearestKey('vlaue', ['ms', 'value'])).toBe('value');
    expect(nearestKey('dependnecies', ['dependencies', 'description'])).toBe('dependencies');
    expect(nearestKey('ab', ['ba', 'xy'])).toBe('ba'); // within a short key's budget of one edit
  });

  it('still suggests nothing for a key far from every known one', () => {
    expect(nearestKey('colour', ['text', 'max'])).toBeNull();
    expect(nearestKey('abc', ['cab'])).toBeNull();
  });
});
