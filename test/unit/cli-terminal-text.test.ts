/**
 * What the CLI writes to a terminal (src/cli/terminal-text.ts), in plain Node: escape sequences in
 * other people's text are written out (a colour too), the CLI's own colours kept, JSON still JSON.
 */
import { describe, expect, it } from 'vitest';
import { COLOR } from '../../src/cli/render';
import { terminalText } from '../../src/cli/terminal-text';

describe('text the CLI writes to a terminal', () => {
  it('writes out escapes, bell, carriage return, C1 and bidi controls, and keeps tabs and line breaks', () => {
    expect(terminalText('a\u001b]0;t\u0007b')).toBe('a\\u001b]0;t\\u0007b');
    expect(terminalText('x\rfake\u009b2J\u202Eevil')).toBe('x\\u000dfake\\u009b2J\\u202eevil');
    expect(terminalText('a\tb\nc 🙂')).toBe('a\tb\nc 🙂');
  });

  it('keeps the colours the CLI paints, and only those', () => {
    const painted = `${COLOR.red('failed')} ${COLOR.bold(COLOR.dim('x'))}`;
    expect(terminalText(painted)).toBe('\u001b[31mfailed\u001b[0m \u001b[1m\u001b[2mx\u001b[0m\u001b[0m');
    expect(terminalText('\u001b[8mhidden')).toBe('\\u001b[8mhidden');
  });

  it('writes out a colour in other people’s text, the very ones the CLI paints with too', () => {
    // A tool's error painting the lines after it: a forged green "completed", a dimmed warning.
    expect(terminalText('\u001b[32mcompleted\u001b[0m')).toBe('\\u001b[32mcompleted\\u001b[0m');
    expect(terminalText(COLOR.red(`x \u001b[2mdim`))).toBe('\u001b[31mx \\u001b[2mdim\u001b[0m');
  });

  it('writes out what the dashboard writes out: a soft hyphen, a word joiner, invisible operators', () => {
    for (const c of ['\u00AD', '\u180E', '\u2060', '\u2064', '\u206A', '\u206F', '\uFFF9', '\uFFFB'])
      expect(terminalText(`a${c}b`)).toBe(`a\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}b`);
  });

  it('leaves JSON that reads back as the same value', () => {
    const value = { goal: 'ok\u001b[2J\u009b\u2066' };
    expect(JSON.parse(terminalText(JSON.stringify(value)))).toEqual(value);
  });

  it('keeps the joiners writing needs — an emoji family, a Persian word — and writes out the others', () => {
    for (const written of ['👩\u200D👩\u200D👧', '🏳️\u200D🌈', 'می\u200Cخواهم'])
      expect(terminalText(written)).toBe(written);
    expect(terminalText('pa\u200Dy \u200C')).toBe('pa\\u200dy \\u200c');
  });
});
