/**
 * What the CLI writes to a terminal, made safe to write: a run's goal, a tool's error, an MCP server's
 * tool description are other people's text, and an escape sequence in them is obeyed by the terminal —
 * a new window title, a cleared screen, OSC 52 writing the clipboard, text hidden or written over with
 * a carriage return. Control characters (C0 but tab and line feed, DEL, C1) and bidirectional controls
 * are shown as `\u001b`-style escapes instead, which inside JSON text are the same JSON. The colours
 * the CLI paints itself (src/cli/render.ts) pass, and so do the joiners writing needs (an emoji
 * family, a Persian word: client/joiners.ts).
 */
import { writtenJoiner } from '../client/joiners';

const UNSAFE =
  // eslint-disable-next-line no-control-regex -- control characters are what it finds
  /(\u001b\[(?:0|1|2|31|32|33|36)m)|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * `text` with every character a terminal would act on written out, the CLI's own colours kept.
 * @example terminalText('goal\u001b]0;pwned\u0007') // 'goal\\u001b]0;pwned\\u0007'
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, (m, colour: string | undefined, at: number) =>
    colour || writtenJoiner(text, at) ? m : `\\u${m.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
