/**
 * Whether a zero-width joiner or non-joiner is part of what text means, where the CLI and the
 * dashboard otherwise write every zero-width character out (they can hide a difference a reader is
 * asked to trust). Two uses are writing, not hiding: a ZWJ between emoji makes one picture of them
 * (👩‍👩‍👧, 🏳️‍🌈, 👩🏽‍💻), and ZWNJ/ZWJ inside a word of Arabic script or an Indic one choose a letter's
 * form (Persian "می‌خواهم", Hindi half forms). Written out there, a family reads as
 * `👩\u200d👩\u200d👧` and a Persian word as two.
 */

/** An emoji, then an optional skin tone and presentation selector: what a ZWJ may follow. */
const EMOJI_BEFORE = /\p{Extended_Pictographic}[\u{1F3FB}-\u{1F3FF}]?\uFE0F?$/u;
const EMOJI_AFTER = /^\p{Extended_Pictographic}/u;
/** Letters and marks of the scripts that write with joiners. */
const JOINING =
  /[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Nko}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}]/u;

/**
 * Whether the character at `index` of `text` is a ZWNJ (U+200C) or ZWJ (U+200D) that writing
 * needs: a ZWJ between emoji, either between two letters of a joining script.
 * @example writtenJoiner('👩\u200d👧', 2) // true
 * @example writtenJoiner('pa\u200dy', 2) // false
 */
export function writtenJoiner(text: string, index: number): boolean {
  const c = text[index];
  if (c !== '\u200c' && c !== '\u200d') return false;
  // Eight units back reach an emoji (two), a skin tone (two) and a selector (one).
  const before = text.slice(Math.max(0, index - 8), index);
  const after = text.slice(index + 1, index + 3);
  if (c === '\u200d' && EMOJI_BEFORE.test(before) && EMOJI_AFTER.test(after)) return true;
  return JOINING.test(before.slice(-1)) && JOINING.test(after.slice(0, 1));
}
