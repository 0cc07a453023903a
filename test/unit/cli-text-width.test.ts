/**
 * The CLI's text measured in terminal columns (src/cli/text-width.ts) and its tables, in plain Node:
 * wide characters take two columns, cuts fall between grapheme clusters.
 */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { table } from '../../src/cli/context';
import { clip, padEnd, textWidth } from '../../src/cli/text-width';

const graphemes = (s: string) =>
  [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(s)].map((g) => g.segment);

describe('text in terminal columns', () => {
  it('measures wide, combining and emoji text as a terminal draws it', () => {
    expect(textWidth('東京')).toBe(4);
    expect(textWidth('e\u0301')).toBe(1);
    expect(textWidth('👩\u200D👩\u200D👧 🇯🇵 👍🏽')).toBe(8);
    expect(padEnd('東京', 6)).toBe('東京  ');
  });

  it('cuts to the columns given, between grapheme clusters, never inside a pair or a sequence', () => {
    const texts = [
      '東京タワーに行く',
      'ab👩\u200D👩\u200D👧cd',
      'x🇯🇵🇫🇷y',
      'e\u0301e\u0301e\u0301e\u0301',
      'مرحبا بالعالم',
    ];
    for (const text of texts)
      for (let n = 1; n <= 2 * text.length + 1; n++) {
        const cut = clip(text, n);
        expect(stringWidth(cut)).toBeLessThanOrEqual(n);
        // What is kept is whole graphemes of the text, then the ellipsis.
        const kept = cut.endsWith('…') && cut !== text ? cut.slice(0, -1) : cut;
        expect(graphemes(text).slice(0, graphemes(kept).length).join('')).toBe(kept);
        expect(!(stringWidth(text) <= n) || cut === text).toBe(true);
      }
    expect(clip('東京タワー', 5)).toBe('東京…');
  });

  it('aligns table columns of wide text', () => {
    const rows = table([
      ['NAME', 'STATUS', 'NOTE'],
      ['東京', 'ok', 'a'],
      ['👩\u200D👩\u200D👧', 'ok', 'b'],
      ['ascii', 'ok', 'c'],
    ]).split('\n');
    const statusAt = rows.map((r) =>
      stringWidth(r.slice(0, r.indexOf(r.includes('STATUS') ? 'STATUS' : 'ok'))),
    );
    expect(new Set(statusAt).size).toBe(1);
  });
});
