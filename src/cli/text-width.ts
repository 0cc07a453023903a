/**
 * Text measured as a terminal draws it: in columns, not UTF-16 units. A CJK character takes two
 * columns, an emoji sequence (👩‍👩‍👧, 🇯🇵, 👍🏽) two however many code points it has, a combining
 * mark none — so a table padded by `.length` slid its columns for a goal in Japanese, and a clip by
 * `.slice` could end inside a surrogate pair (a lone half drawn as �) or a ZWJ sequence (a family
 * cut to one person). Widths are string-width's (what log-update and most terminal tools use); cuts
 * fall between grapheme clusters (Intl.Segmenter).
 */
import stringWidth from 'string-width';

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Columns `s` takes in a terminal; the CLI's own colours take none.
 * @example textWidth('東京') // 4
 */
export function textWidth(s: string): number {
  return stringWidth(s);
}

/**
 * `s` in at most `columns` columns: when longer, cut at a grapheme boundary and ended with `…`.
 * @example clip('東京タワー', 5) // '東京…'
 */
export function clip(s: string, columns: number): string {
  // No character takes more than two columns per UTF-16 unit: short text needs no walk.
  if (2 * s.length <= columns) return s;
  const room = Math.max(0, columns - 1);
  let used = 0;
  let cut = -1;
  // Walked only as far as it takes to fill `columns`: a megabyte of output is not measured whole.
  for (const { segment, index } of graphemes.segment(s)) {
    used += textWidth(segment);
    if (cut < 0 && used > room) cut = index;
    if (used > columns) return `${s.slice(0, cut)}…`;
  }
  return s;
}

/**
 * `s` followed by spaces to fill `columns` columns (none when it already fills them).
 * @example padEnd('東京', 6) // '東京  '
 */
export function padEnd(s: string, columns: number): string {
  return s + ' '.repeat(Math.max(0, columns - textWidth(s)));
}
