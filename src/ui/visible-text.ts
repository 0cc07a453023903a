/**
 * Characters that change how text reads without being seen — bidirectional overrides and isolates,
 * zero-width characters, control characters — made visible wherever the dashboard shows text a plan,
 * a model or a tool wrote. An approver reads the plan to decide on it: "pay \u202E01$ ot" drawn as the
 * browser draws it shows something else than what runs (Trojan Source, CVE-2021-42574). The joiners
 * writing needs stay (an emoji family, a Persian word: client/joiners.ts).
 */
import { HIDDEN_CHARACTERS } from '../client/hidden-characters';
import { writtenJoiner } from '../client/joiners';

const HIDDEN = new RegExp(`[${HIDDEN_CHARACTERS}]`, 'g');

const hex = (c: string) => c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');

/**
 * `s` with each hidden character written out as `[U+XXXX]`, for text shown as text.
 * @example visibleText('pay \u202E01$') // 'pay [U+202E]01$'
 */
export function visibleText(s: string): string {
  return s.replace(HIDDEN, (c, at: number) => (writtenJoiner(s, at) ? c : `[U+${hex(c)}]`));
}

/**
 * JSON text with each hidden character inside its strings written as a `\uXXXX` escape: the same
 * JSON (JSON.parse reads the character back), so an editor showing it sends what it was given.
 * @example visibleJson(JSON.stringify({ to: 'x\u202Ey' })) // '{"to":"x\\u202ey"}'
 */
export function visibleJson(json: string): string {
  return json.replace(HIDDEN, (c, at: number) =>
    writtenJoiner(json, at) ? c : `\\u${hex(c).toLowerCase()}`,
  );
}
