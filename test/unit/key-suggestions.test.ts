import { describe, expect, it } from 'vitest';
import {
  keyWithTheseWords,
  knownSynonym,
  nearestKey,
  unknownKeysMessage,
} from '../../src/plan/key-suggestions';

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

describe('unknownKeysMessage', () => {
  it('names every key of a few, each with what it likely meant', () => {
    expect(unknownKeysMessage(['vlaue', 'colour'], ['value'])).toBe(
      'Unknown keys "vlaue" (did you mean "value"?), "colour"; known keys: value',
    );
  });

  it('lists the known keys only when a key resembles none, and only a list one can read', () => {
    expect(unknownKeysMessage(['vlaue'], ['value', 'ms'])).toBe(
      'Unknown key "vlaue" (did you mean "value"?)',
    );
    const many = Array.from({ length: 31 }, (_, i) => `key_${i}`);
    expect(unknownKeysMessage(['colour'], many)).toBe('Unknown key "colour"');
    expect(unknownKeysMessage(['colour'], many.slice(0, 30))).toContain('; known keys: key_0, key_1,');
  });

  it('suggests the one known key that has every word of the unknown one: a word left out is many edits', () => {
    const config = ['execution_mode', 'max_parallel', 'require_plan_approval', 'approval', 'timeout_s'];
    expect(unknownKeysMessage(['require_approval'], config)).toBe(
      'Unknown key "require_approval" (did you mean "require_plan_approval"?)',
    );
    expect(keyWithTheseWords('requireApproval', config)).toBe('require_plan_approval');
    expect(keyWithTheseWords('parallel', config)).toBe('max_parallel');
    // Two keys have the word: a guess between them is no suggestion.
    expect(keyWithTheseWords('timeout', ['timeout_s', 'timeout_ms'])).toBeNull();
    expect(keyWithTheseWords('approval_required', config)).toBeNull();
    expect(keyWithTheseWords('__', config)).toBeNull();
  });

  it('names the first ten of many, then how many more, each cut: not a message as large as the body', () => {
    const keys = Array.from({ length: 200_000 }, (_, i) => `k${i}`);
    keys[0] = 'x'.repeat(1_000_000);
    const message = unknownKeysMessage(keys, ['value']);
    expect(message.length).toBeLessThan(400);
    expect(message).toContain(`"${'x'.repeat(80)}…", "k1"`);
    expect(message.endsWith('"k9", and 199990 more; known keys: value')).toBe(true);
  });
});

describe('knownSynonym', () => {
  const step = ['id', 'action', 'parameters', 'dependencies', 'fallback_action', 'timeout_ms', 'retries'];

  it("names the key another system's name stands for, however it is cased or joined", () => {
    expect(knownSynonym('depends_on', step)).toBe('dependencies');
    expect(knownSynonym('dependsOn', step)).toBe('dependencies');
    expect(knownSynonym('depends-on', step)).toBe('dependencies');
    expect(knownSynonym('needs', step)).toBe('dependencies');
    expect(knownSynonym('args', step)).toBe('parameters');
    expect(knownSynonym('tool', step)).toBe('action');
    expect(knownSynonym('maxRetries', step)).toBe('retries');
    expect(knownSynonym('tasks', ['goal', 'steps'])).toBe('steps');
  });

  it('suggests only a key the object takes, and nothing for a key that is no synonym', () => {
    expect(knownSynonym('depends_on', ['goal', 'steps'])).toBeNull();
    expect(knownSynonym('colour', step)).toBeNull();
  });

  it("is said in the message when no known key is within a few edits, after the spelling's own", () => {
    expect(unknownKeysMessage(['depends_on'], step)).toBe(
      'Unknown key "depends_on" (did you mean "dependencies"?)',
    );
    // `input` is a spelling of a known `input` before it is a synonym of `parameters`.
    expect(unknownKeysMessage(['inputs'], ['input', 'parameters'])).toBe(
      'Unknown key "inputs" (did you mean "input"?)',
    );
  });
});
