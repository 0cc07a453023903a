/**
 * A step's parameters as the dashboard's plan table shows them (src/ui/fold-json.ts), in plain Node:
 * short ones whole; long ones with every key kept and each long value cut, never mid-character.
 */
import { describe, expect, it } from 'vitest';
import { FOLD_AT, foldJson, VALUE_KEPT } from '../../src/ui/fold-json';

describe('a step’s parameters, folded for the plan table', () => {
  it('leaves parameters of up to FOLD_AT characters whole and unfolded', () => {
    const value = { q: 'x'.repeat(FOLD_AT - 8) };
    expect(JSON.stringify(value)).toHaveLength(FOLD_AT);
    expect(foldJson(value)).toEqual({ whole: JSON.stringify(value), folded: null });
    expect(foldJson({})).toEqual({ whole: '{}', folded: null });
  });

  it('cuts a long value and keeps the keys after it', () => {
    const value = { prompt: 'Summarise the report. '.repeat(40), model: 'small', n: 3 };
    const { whole, folded } = foldJson(value);
    expect(whole).toBe(JSON.stringify(value));
    expect(folded).toBe(
      `{"prompt":${JSON.stringify(value.prompt).slice(0, VALUE_KEPT)}…,"model":"small","n":3}`,
    );
  });

  it('cuts the whole at FOLD_AT when its many short values still make it long', () => {
    const value = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, i]));
    const { folded } = foldJson(value);
    expect(folded).toBe(`${JSON.stringify(value).slice(0, FOLD_AT)}…`);
  });

  it('never cuts between the halves of a surrogate pair', () => {
    // `"` then emoji (2 units each): unit VALUE_KEPT - 1 is a high surrogate when VALUE_KEPT is even.
    const value = { s: '😀'.repeat(200) };
    const { folded } = foldJson(value);
    const kept = folded!.slice('{"s":'.length, -'…}'.length);
    expect(kept.length).toBeLessThanOrEqual(VALUE_KEPT);
    expect(kept).toBe(`"${'😀'.repeat((kept.length - 1) / 2)}`);
    // No lone surrogate: it would be drawn as a replacement character.
    expect(folded).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
