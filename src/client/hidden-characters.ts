/**
 * The characters that change how text reads without being seen, as one character class the CLI
 * (cli/terminal-text.ts) and the dashboard (ui/visible-text.ts) both write out: bidi marks,
 * embeddings, overrides and isolates; zero-width and invisible format characters (a soft hyphen, a
 * word joiner, the interlinear annotation marks); C0 and C1 controls but tab, line feed and carriage
 * return (a terminal adds the carriage return: it moves the cursor). Kept apart, the CLI's list had
 * fallen behind the dashboard's, and a soft hyphen a terminal draws a column wide but text-width
 * measures as none slid the live view's lines past the width they were cut to.
 */

/**
 * The class's body, for `new RegExp(`[${HIDDEN_CHARACTERS}]`, 'g')`.
 * @example new RegExp(`[${HIDDEN_CHARACTERS}]`).test('pay \u202E01$') // true
 */
export const HIDDEN_CHARACTERS =
  '\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\u00AD\\u061C\\u180E\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u206F\\uFEFF\\uFFF9-\\uFFFB';
