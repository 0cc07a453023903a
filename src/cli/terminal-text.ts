/**
 * What the CLI writes to a terminal, made safe to write: a run's goal, a tool's error, an MCP server's
 * tool description are other people's text, and an escape sequence in them is obeyed by the terminal —
 * a new window title, a cleared screen, OSC 52 writing the clipboard, text hidden or written over with
 * a carriage return, the lines after it painted. Control characters (C0 but tab and line feed, DEL,
 * C1), bidirectional controls and the other characters the dashboard writes out too
 * (client/hidden-characters.ts) are shown as `\u001b`-style escapes instead, which inside JSON text are
 * the same JSON. The colours the CLI paints itself pass (src/cli/render.ts paints with
 * {@link ownColour}), and so do the joiners writing needs (an emoji family, a Persian word:
 * client/joiners.ts).
 */
import { HIDDEN_CHARACTERS } from '../client/hidden-characters';
import { writtenJoiner } from '../client/joiners';

/**
 * What marks a colour as the CLI's own: drawn at random by this process, so text from elsewhere cannot
 * hold it. A colour is an escape sequence like any other: kept by its form alone, a `\u001b[31m` in a
 * goal or a tool's error reached the terminal and painted what followed it (a forged red "failed", a
 * green "completed"). Private-use characters, taken out before anything is written.
 */
const OWN = Array.from(crypto.getRandomValues(new Uint16Array(8)), (n) =>
  String.fromCharCode(0xe000 + (n % 0x1900)),
).join('');

const UNSAFE = new RegExp(`(${OWN})(\\u001b\\[\\d{1,2}m)|[${HIDDEN_CHARACTERS}\\r]`, 'g');

/**
 * The escape sequence of SGR colour `code`, marked as the CLI's own: {@link terminalText} writes it
 * as the sequence, where the same sequence in other text is written out.
 * @example ownColour(31) + 'failed' + ownColour(0)
 */
export function ownColour(code: number): string {
  return `${OWN}\u001b[${code}m`;
}

/**
 * `text` with every character a terminal would act on written out, the CLI's own colours kept.
 * @example terminalText('goal\u001b]0;pwned\u0007') // 'goal\\u001b]0;pwned\\u0007'
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, (m, own: string | undefined, colour: string | undefined, at: number) =>
    own && colour
      ? colour
      : writtenJoiner(text, at)
        ? m
        : `\\u${m.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * `text` on one line: its line breaks and tabs as spaces — a table's cell, an event's line. A tool's
 * error of two lines began a line of its own under `edgeplan show`'s table, where it read as a row
 * (and could be written to read as a step's), and under `edgeplan events` as an event.
 * @example oneLine('failed:\n  at x') // 'failed: at x'
 */
export function oneLine(text: string): string {
  return text.replace(/[\t\n]+\s*/g, ' ');
}
