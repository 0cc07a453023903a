/**
 * Quotes of someone's text cut between graphemes (src/text-cut.ts), in plain Node: within the units
 * given, never half a surrogate pair, an emoji sequence or a letter without its accent.
 */
import { describe, expect, it } from 'vitest';
import { clipText, textStart } from '../../src/text-cut';

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('text cut for a quote', () => {
  it('keeps whole graphemes within the units given', () => {
    const texts = ['ab👩\u200D👩\u200D👧cd', 'x🇯🇵🇫🇷y', 'e\u0301e\u0301e\u0301', '東京タワー', 'plain ascii'];
    for (const text of texts)
      for (let n = 0; n <= text.length + 1; n++) {
        const start = textStart(text, n);
        expect(start.length).toBeLessThanOrEqual(n);
        expect(text.startsWith(start)).toBe(true);
        expect(start).not.toMatch(LONE);
        expect(!(text.length <= n) || start === text).toBe(true);
      }
    expect(textStart('ab👩\u200D👧', 3)).toBe('ab');
    expect(clipText('東京タワー', 2)).toBe('東京…');
    expect(clipText('short', 5)).toBe('short');
  });

  it('cuts one grapheme longer than the room between code points', () => {
    const zalgo = `😀${'\u0301'.repeat(300)}`;
    expect(textStart(zalgo, 1)).toBe('');
    expect(textStart(zalgo, 100)).toBe(zalgo.slice(0, 100));
    expect(textStart(`x${zalgo}`, 2)).toBe('x');
  });
});
