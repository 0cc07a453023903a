/**
 * How deeply a YAML text nests, measured on the lexer's tokens before anything parses it: the yaml
 * library composes documents recursively, so a few thousand nested sequences overflow its stack, and
 * a few million (5 MiB of `[`) take it minutes. The lexer is linear and streams, so the measure stops
 * at the first point past the limit.
 */
import { CST, Lexer } from 'yaml';

/** Where the text first nests past the limit (`offset` into the source), or null when it does not. */
export type TooDeep = { offset: number } | null;

/** A block node on the current path: its column, and whether it is a sequence entry (`- `). */
type Open = { col: number; seq: boolean };

/** Lexer markers that take no room in the source. */
const MARKERS = new Set([CST.DOCUMENT, CST.SCALAR, CST.FLOW_END]);
const INDICATORS = new Set(['seq-item-ind', 'explicit-key-ind', 'map-value-ind']);
const LAYOUT = new Set(['space', 'comment', 'comma', 'newline', 'byte-order-mark', 'directive-line']);

/**
 * Whether `source` nests block and flow collections more than `limit` levels deep. Block nesting
 * follows indentation: each line's leading nodes (`- - a:` is three) close the open nodes at their
 * column or right of it, except that a sequence may sit at its parent key's column. Flow nesting
 * counts brackets, which the lexer has already told apart from quoted text (a closer that does not
 * match closes nothing, so stray ones cannot hide openers). Never less than the
 * depth the parser would reach, so a text under the limit is safe to parse.
 * @example yamlTooDeep('a: [[1]]', 2) // { offset: 4 }
 */
export function yamlTooDeep(source: string, limit: number): TooDeep {
  const open: Open[] = [];
  /** The open brackets; a closer that does not match the last one closes nothing. */
  const flow: string[] = [];
  let offset = 0;
  let col = 0;
  /** Still among the line's leading nodes (only indentation and indicators so far). */
  let leading = true;
  for (const token of new Lexer().lex(source)) {
    if (MARKERS.has(token)) continue;
    const type = CST.tokenType(token);
    const at = offset;
    offset += token.length;
    if (type === 'flow-seq-start' || type === 'flow-map-start') {
      if (leading && flow.length === 0) enter(open, col, false);
      leading = false;
      flow.push(token === '[' ? ']' : '}');
      if (flow.length + open.length > limit) return { offset: at };
    } else if (type === 'flow-seq-end' || type === 'flow-map-end') {
      if (flow[flow.length - 1] === token) flow.pop();
    } else if (type === 'doc-start' || type === 'doc-end') {
      open.length = 0;
      flow.length = 0;
    } else if (leading && flow.length === 0 && !LAYOUT.has(type ?? '')) {
      // A node starting the line, or following `- ` / `? ` / `: ` on it: block structure.
      enter(open, col, type === 'seq-item-ind');
      leading = INDICATORS.has(type ?? '');
      if (open.length > limit) return { offset: at };
    } else if (!LAYOUT.has(type ?? '')) {
      leading = false;
    }
    const newline = token.lastIndexOf('\n');
    if (newline >= 0) {
      col = token.length - newline - 1;
      leading = newline === token.length - 1;
    } else {
      col += token.length;
    }
  }
  return null;
}

/** Closes the nodes a node at `col` ends, then opens it. */
function enter(open: Open[], col: number, seq: boolean): void {
  for (;;) {
    const top = open[open.length - 1];
    if (!top || top.col < col) break;
    // `key:` then `- item` at the key's column: the sequence is the key's value, one level deeper.
    if (top.col === col && seq && !top.seq) break;
    open.pop();
  }
  open.push({ col, seq });
}
