/**
 * What a YAML text is, read from the lexer's tokens before anything parses it — so a text too costly
 * to parse is refused for the cost of one linear, streaming pass:
 * - how deeply it nests: the yaml library composes documents recursively, so a few thousand nested
 *   sequences overflow its stack, and a few million (5 MiB of `[`) take it minutes;
 * - how many aliases (`*name`) it has: the library looks each one up by scanning the document's
 *   anchors and aliases (and, outside `toJS`, by walking the whole document), so their cost grows with
 *   their square — 20,000 aliases, 130 KB of text, took minutes;
 * - how many entries each top-level key's block sequence has (`nodes:` then `- …` lines), and which of
 *   some words occur as scalars — what a format needs to size a document without building it.
 */
import { CST, Lexer } from 'yaml';

/** Where the text first nests past the limit (`offset` into the source), or null when it does not. */
export type TooDeep = { offset: number } | null;

export type YamlScan = {
  /** Where the text first nests past `maxDepth`; the scan stops there, so the rest is partial then. */
  tooDeep: TooDeep;
  /** How many aliases the text has, and where the first past `maxAliases` is (null: none past it). */
  aliases: { count: number; pastLimit: number | null };
  /**
   * For each top-level mapping key, the entries of its value when that is a block sequence (`- ` at
   * the sequence's indentation; 0 for any other value — a flow sequence `[…]` included), and the
   * key's offset. A key given twice counts its last value.
   */
  rootSequences: Map<string, { entries: number; offset: number }>;
  /** Which of the `words` asked for occur as a scalar (plain or quoted) anywhere. */
  words: Set<string>;
};

export type ScanLimits = { maxDepth: number; maxAliases?: number; words?: ReadonlySet<string> };

/** A block node on the current path: its column, and whether it is a sequence entry (`- `). */
type Open = { col: number; seq: boolean };

/** Lexer markers that take no room in the source. */
const MARKERS = new Set([CST.DOCUMENT, CST.SCALAR, CST.FLOW_END]);
const INDICATORS = new Set(['seq-item-ind', 'explicit-key-ind', 'map-value-ind']);
const LAYOUT = new Set([
  'space',
  'comment',
  'comma',
  'newline',
  'byte-order-mark',
  'directive-line',
  // The text of a block scalar: its header already opened the node.
  'block-scalar-text',
]);
const SCALARS = new Set(['scalar', 'single-quoted-scalar', 'double-quoted-scalar']);

/**
 * One pass over `source`'s tokens. Block nesting follows indentation: each line's leading nodes
 * (`- - a:` is three) close the open nodes at their column or right of it, except that a sequence may
 * sit at its parent key's column. Flow nesting counts brackets, which the lexer has already told apart
 * from quoted text (a closer that does not match closes nothing, so stray ones cannot hide openers).
 * The depth is never less than the parser would reach, so a text under the limit is safe to parse.
 * @example scanYaml('nodes:\n  - a\n  - b\n', { maxDepth: 10 }).rootSequences.get('nodes') // { entries: 2, offset: 0 }
 */
export function scanYaml(source: string, limits: ScanLimits): YamlScan {
  const { maxDepth, maxAliases = Infinity, words } = limits;
  const scan: YamlScan = {
    tooDeep: null,
    aliases: { count: 0, pastLimit: null },
    rootSequences: new Map(),
    words: new Set(),
  };
  const open: Open[] = [];
  /** The open brackets; a closer that does not match the last one closes nothing. */
  const flow: string[] = [];
  /** The top-level key being read (its block sequence's entries are counted), else null. */
  let rootKey: { entries: number; offset: number } | null = null;
  let offset = 0;
  let col = 0;
  /** Still among the line's leading nodes (only indentation and indicators so far). */
  let leading = true;
  /** The lexer marks each scalar's text; a block scalar's text follows its header (`|`, `>`). */
  let scalarNext = false;
  let blockScalar = false;
  for (const token of new Lexer().lex(source)) {
    if (token === CST.SCALAR) {
      scalarNext = true;
      continue;
    }
    if (MARKERS.has(token)) continue;
    // A scalar's text is data, whatever it looks like: a plain `---` is no document start.
    const type = scalarNext ? (blockScalar ? 'block-scalar-text' : 'scalar') : CST.tokenType(token);
    if (type !== 'space' && type !== 'newline' && type !== 'comment') blockScalar = false;
    if (type === 'block-scalar-header') blockScalar = true;
    scalarNext = false;
    const at = offset;
    offset += token.length;
    if (type === 'alias' && ++scan.aliases.count > maxAliases && scan.aliases.pastLimit === null) {
      scan.aliases.pastLimit = at;
    }
    if (words !== undefined && SCALARS.has(type ?? '') && words.has(unquoted(token))) {
      scan.words.add(unquoted(token));
    }
    if (type === 'flow-seq-start' || type === 'flow-map-start') {
      if (leading && flow.length === 0) enter(open, col, false);
      leading = false;
      flow.push(token === '[' ? ']' : '}');
      if (flow.length + open.length > maxDepth) return { ...scan, tooDeep: { offset: at } };
    } else if (type === 'flow-seq-end' || type === 'flow-map-end') {
      if (flow[flow.length - 1] === token) flow.pop();
    } else if (type === 'doc-start' || type === 'doc-end') {
      open.length = 0;
      flow.length = 0;
      rootKey = null;
    } else if (leading && flow.length === 0 && !LAYOUT.has(type ?? '')) {
      // A node starting the line, or following `- ` / `? ` / `: ` on it: block structure.
      enter(open, col, type === 'seq-item-ind');
      leading = INDICATORS.has(type ?? '');
      if (open.length > maxDepth) return { ...scan, tooDeep: { offset: at } };
      if (open.length === 1) {
        // A top-level node: a key of the root mapping when it is a scalar (an explicit `? ` key, or a
        // root that is a sequence, counts nothing).
        rootKey = SCALARS.has(type ?? '') ? { entries: 0, offset: at } : null;
        if (rootKey !== null) scan.rootSequences.set(unquoted(token), rootKey);
      } else if (open.length === 2 && type === 'seq-item-ind' && rootKey !== null) {
        rootKey.entries++;
      }
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
  return scan;
}

/**
 * Whether `source` nests block and flow collections more than `limit` levels deep (see
 * {@link scanYaml}).
 * @example yamlTooDeep('a: [[1]]', 2) // { offset: 4 }
 */
export function yamlTooDeep(source: string, limit: number): TooDeep {
  return scanYaml(source, { maxDepth: limit }).tooDeep;
}

/** A scalar token's text without its quotes (escapes are left as written: words are plain). */
function unquoted(token: string): string {
  const q = token[0];
  return (q === '"' || q === "'") && token.length >= 2 && token.endsWith(q) ? token.slice(1, -1) : token;
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
