/**
 * The start of a text cut to a number of UTF-16 units, as the messages that quote someone's text cut
 * it (a key, a tool's name, a model's answer, a tool's error): never inside a surrogate pair, an
 * emoji sequence or a letter and its accents. `s.slice(0, n)` could keep half of an emoji — a lone
 * surrogate, which reaches a client as `"\ud83d"` (text this server itself refuses in a body: http/
 * lone-surrogates.ts) and a terminal or a page as U+FFFD. Pure: loads in the engine, the Worker, the
 * CLI and the dashboard.
 */

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * The longest start of `s` of whole graphemes in at most `max` UTF-16 units (`s` itself when it fits).
 * @example textStart('ab👩‍👧', 3) // 'ab'
 */
export function textStart(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = 0;
  // Walked only up to `max`: a megabyte of text is not segmented whole for a 200-character quote.
  for (const { index, segment } of graphemes.segment(s)) {
    if (index + segment.length > max) break;
    end = index + segment.length;
  }
  // One grapheme longer than `max` (a letter under a thousand marks): cut between code points.
  if (end === 0) end = /[\uD800-\uDBFF]/.test(s[max - 1] ?? '') ? max - 1 : max;
  return s.slice(0, end);
}

/**
 * `s` cut to `max` UTF-16 units as {@link textStart} cuts it, then `…` (`s` itself when it fits).
 * @example clipText('東京タワー', 2) // '東京…'
 */
export function clipText(s: string, max: number): string {
  return s.length <= max ? s : `${textStart(s, max)}…`;
}
