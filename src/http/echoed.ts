/**
 * What an error message repeats of the caller's own input — an id in the path, the path itself, an
 * argument — cut to {@link ECHO_CHARS} characters with "…": enough to recognise it, while a 20 KB id
 * does not come back as a 20 KB message (in every log line and terminal that shows it).
 * @example `No run "${echoed(id)}"` // 'No run "run_aaaa…"' for a long id
 */

/** The most characters of caller input a message repeats. */
export const ECHO_CHARS = 80;

export function echoed(text: string): string {
  if (text.length <= ECHO_CHARS) return text;
  // Not between the halves of a surrogate pair: a lone half is no character, and no JSON string's.
  const end = /[\uD800-\uDBFF]/.test(text.charAt(ECHO_CHARS - 1)) ? ECHO_CHARS - 1 : ECHO_CHARS;
  return `${text.slice(0, end)}…`;
}
