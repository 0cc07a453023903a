/**
 * `when` conditions over state (SPEC §2). A small expression language with a hand-written parser —
 * no eval, which Workers forbid anyway.
 *
 * - Operands: references written bare (`state.x`, `input.flag`, `steps.a.output.ok`) or in braces
 *   (`{{ state.x }}`); numbers; `'single'` or `"double"` quoted strings (with `\` escapes);
 *   `true`, `false`, `null`, `undefined`.
 * - Operators, loosest first: `||`, `&&`, comparisons `== != < <= > >=` (`===`/`!==` are aliases;
 *   one comparison per operand, no chains), prefix `!` and `-`; parentheses group. No arithmetic:
 *   path names may contain `-` (`state.my-key`), as step ids do.
 * - Semantics are JavaScript's where that is unsurprising: truthiness, short-circuit `&&`/`||`.
 *   Equality is strict except that `null` and `undefined` are equal, and arrays/objects compare by
 *   content. `< <= > >=` compare two strings lexically and otherwise numbers; a `null`, `undefined`,
 *   object or non-numeric operand makes them false. A path never written reads as `undefined`.
 */
import { isNameChar, parseReferenceExpression, readReference } from './references';
import type { RefScope, Reference } from './references';
import { TextKeyedCache, type TextKeyedCacheLimits } from './text-keyed-cache';

export type ConditionParse = { ok: true; refs: Reference[] } | { ok: false; message: string };

type CmpOp = '==' | '!=' | '<' | '<=' | '>' | '>=';
type Node =
  | { k: 'lit'; v: unknown }
  | { k: 'ref'; ref: Reference }
  | { k: 'not' | 'neg'; e: Node }
  // A chain (`a || b || c`) is one node, evaluated in a loop: nested pairs made its depth the chain's
  // length, and a caller's chain of 20,000 terms overflowed the run object's stack.
  | { k: 'and' | 'or'; items: Node[] }
  | { k: 'cmp'; op: CmpOp; l: Node; r: Node };

type Token =
  | { t: 'lit'; v: unknown; pos: number }
  | { t: 'ref'; ref: Reference; pos: number }
  | { t: 'op'; v: string; pos: number }
  | { t: 'end'; pos: number };

class ConditionError extends Error {
  override readonly name = 'ConditionError';
}

const MAX_NESTING = 64;
const OPERATORS = ['===', '!==', '==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '-', '(', ')'];
const KEYWORDS: Record<string, unknown> = { true: true, false: false, null: null, undefined };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const fail = (why: string, at: number): never => {
    throw new ConditionError(`Bad condition "${src}": ${why} at position ${at}`);
  };
  while (i < src.length) {
    const c = src.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      i++;
    } else if (src.startsWith('{{', i)) {
      const close = src.indexOf('}}', i + 2);
      if (close < 0) fail('"{{" never closed', i);
      const text = src.slice(i, close + 2);
      const parsed = parseReferenceExpression(src.slice(i + 2, close).trim(), text);
      if (!parsed.ok) throw new ConditionError(`Bad condition "${src}": ${parsed.message}`);
      out.push({ t: 'ref', ref: parsed.ref, pos: i });
      i = close + 2;
    } else if (c === 39 || c === 34) {
      const [v, end] = readString(src, i) ?? fail('unterminated string', i);
      out.push({ t: 'lit', v, pos: i });
      i = end;
    } else if (c >= 48 && c <= 57) {
      const m = /^\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(src.slice(i));
      const text = m?.[0] ?? '';
      if (i + text.length < src.length && isNameChar(src.charCodeAt(i + text.length))) fail('bad number', i);
      out.push({ t: 'lit', v: Number(text), pos: i });
      i += text.length;
    } else if (isWordStart(c)) {
      let j = i;
      while (j < src.length && isNameChar(src.charCodeAt(j))) j++;
      const word = src.slice(i, j);
      if (Object.hasOwn(KEYWORDS, word)) {
        out.push({ t: 'lit', v: KEYWORDS[word], pos: i });
        i = j;
        continue;
      }
      if (word !== 'steps' && word !== 'state' && word !== 'input') {
        fail(`unknown name "${word}" (references start with steps., state. or input.)`, i);
      }
      j = scanBareReference(src, j);
      const text = src.slice(i, j);
      const parsed = parseReferenceExpression(text);
      if (!parsed.ok) throw new ConditionError(`Bad condition "${src}": ${parsed.message}`);
      out.push({ t: 'ref', ref: parsed.ref, pos: i });
      i = j;
    } else {
      const op = OPERATORS.find((o) => src.startsWith(o, i));
      if (op === undefined) fail(`unexpected "${src[i]}"`, i);
      else {
        out.push({ t: 'op', v: op === '===' ? '==' : op === '!==' ? '!=' : op, pos: i });
        i += op.length;
      }
    }
  }
  out.push({ t: 'end', pos: src.length });
  return out;
}

function isWordStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36;
}

/** The end of a bare reference's path: names, dots, and bracketed indexes or quoted keys. */
function scanBareReference(src: string, from: number): number {
  let j = from;
  while (j < src.length) {
    const ch = src[j];
    if (ch === '.' || isNameChar(src.charCodeAt(j))) {
      j++;
    } else if (ch === '[') {
      const q = src[j + 1];
      const end = q === "'" || q === '"' ? src.indexOf(q + ']', j + 2) : src.indexOf(']', j + 1);
      if (end < 0) return src.length;
      j = end + (q === "'" || q === '"' ? 2 : 1);
    } else {
      break;
    }
  }
  return j;
}

function readString(src: string, start: number): [string, number] | null {
  const quote = src[start];
  let out = '';
  for (let i = start + 1; i < src.length; i++) {
    const ch = src[i]!;
    if (ch === quote) return [out, i + 1];
    if (ch === '\\') {
      const next = src[++i];
      if (next === undefined) return null;
      out += next === 'n' ? '\n' : next === 't' ? '\t' : next;
    } else {
      out += ch;
    }
  }
  return null;
}

/** Recursive descent over the tokens; nesting is bounded so hostile input cannot blow the stack. */
function parse(src: string): { ast: Node; refs: Reference[] } {
  const tokens = tokenize(src);
  const refs: Reference[] = [];
  let p = 0;
  const peek = (): Token => tokens[p]!;
  const fail = (tok: Token, why: string): never => {
    throw new ConditionError(`Bad condition "${src}": ${why} at position ${tok.pos}`);
  };
  const isOp = (tok: Token, v: string): boolean => tok.t === 'op' && tok.v === v;

  const or = (depth: number): Node => {
    const items = [and(depth)];
    while (isOp(peek(), '||')) {
      p++;
      items.push(and(depth));
    }
    return items.length === 1 ? items[0]! : { k: 'or', items };
  };
  const and = (depth: number): Node => {
    const items = [cmp(depth)];
    while (isOp(peek(), '&&')) {
      p++;
      items.push(cmp(depth));
    }
    return items.length === 1 ? items[0]! : { k: 'and', items };
  };
  const cmp = (depth: number): Node => {
    const l = unary(depth);
    const tok = peek();
    if (tok.t === 'op' && ['==', '!=', '<', '<=', '>', '>='].includes(tok.v)) {
      p++;
      const node: Node = { k: 'cmp', op: tok.v as CmpOp, l, r: unary(depth) };
      const next = peek();
      if (next.t === 'op' && ['==', '!=', '<', '<=', '>', '>='].includes(next.v)) {
        fail(next, 'chained comparison (use && between comparisons)');
      }
      return node;
    }
    return l;
  };
  const unary = (depth: number): Node => {
    if (depth > MAX_NESTING) fail(peek(), 'nested too deeply');
    const tok = peek();
    if (isOp(tok, '!')) {
      p++;
      return { k: 'not', e: unary(depth + 1) };
    }
    if (isOp(tok, '-')) {
      p++;
      return { k: 'neg', e: unary(depth + 1) };
    }
    return primary(depth);
  };
  const primary = (depth: number): Node => {
    const tok = peek();
    p++;
    if (tok.t === 'lit') return { k: 'lit', v: tok.v };
    if (tok.t === 'ref') {
      refs.push(tok.ref);
      return { k: 'ref', ref: tok.ref };
    }
    if (isOp(tok, '(')) {
      const inner = or(depth + 1);
      if (!isOp(peek(), ')')) fail(peek(), 'expected ")"');
      p++;
      return inner;
    }
    return fail(tok, tok.t === 'end' ? 'unexpected end' : `unexpected "${tok.t === 'op' ? tok.v : ''}"`);
  };

  if (tokens.length === 1) throw new ConditionError('Bad condition: it is empty');
  const ast = or(0);
  if (peek().t !== 'end') fail(peek(), 'unexpected token');
  return { ast, refs };
}

export type CompiledCondition =
  { ok: true; refs: Reference[]; evaluate(scope: RefScope): boolean } | { ok: false; message: string };

/**
 * Parses a condition once for repeated evaluation.
 * @example compileCondition('state.score >= 0.8 && !input.dry_run')
 */
export function compileCondition(expr: string): CompiledCondition {
  try {
    const { ast, refs } = parse(expr);
    return { ok: true, refs, evaluate: (scope) => truthy(evalNode(ast, scope)) };
  } catch (e) {
    if (e instanceof ConditionError) return { ok: false, message: e.message };
    throw e;
  }
}

/** Parses a condition, returning the references it reads (for implicit dependencies) or why it is bad. */
export function parseCondition(expr: string): ConditionParse {
  const c = compileCondition(expr);
  return c.ok ? { ok: true, refs: c.refs } : c;
}

/**
 * Compiled conditions this isolate keeps: a condition's tree is ~20 times its length in heap, so
 * 256 Ki characters of conditions are about 5 MiB; one over 32 Ki characters is compiled at each use.
 */
export const CONDITION_CACHE: TextKeyedCacheLimits = {
  maxEntries: 512,
  maxTotalLength: 256 * 1024,
  maxTextLength: 32 * 1024,
};
const cache = new TextKeyedCache<CompiledCondition>(CONDITION_CACHE);

/**
 * How many compiled conditions this isolate keeps, and their text's length (diagnostics, tests).
 * @example cachedConditions() // { entries: 3, characters: 61 }
 */
export function cachedConditions(): { entries: number; characters: number } {
  return { entries: cache.size, characters: cache.totalLength };
}

/**
 * Evaluates a condition; a path that was never written reads as `undefined`.
 * Throws on a condition that does not parse (validation reports those before a run starts).
 * @example evaluateCondition('state.sunny', scope)
 */
export function evaluateCondition(expr: string, scope: RefScope): boolean {
  const c = cache.get(expr) ?? cache.put(expr, compileCondition(expr));
  if (!c.ok) throw new Error(c.message);
  return c.evaluate(scope);
}

function evalNode(n: Node, scope: RefScope): unknown {
  switch (n.k) {
    case 'lit':
      return n.v;
    case 'ref': {
      const got = readReference(n.ref, scope);
      return got.found ? got.value : undefined;
    }
    case 'not':
      return !truthy(evalNode(n.e, scope));
    case 'neg':
      return -Number(evalNode(n.e, scope));
    case 'and': {
      // JavaScript's: the first falsy operand, else the last.
      let v: unknown;
      for (const item of n.items) if (!truthy((v = evalNode(item, scope)))) return v;
      return v;
    }
    case 'or': {
      // The first truthy operand, else the last.
      let v: unknown;
      for (const item of n.items) if (truthy((v = evalNode(item, scope)))) return v;
      return v;
    }
    case 'cmp':
      return compare(n.op, evalNode(n.l, scope), evalNode(n.r, scope));
  }
}

function truthy(v: unknown): boolean {
  return Boolean(v);
}

function compare(op: CmpOp, a: unknown, b: unknown): boolean {
  if (op === '==') return equal(a, b);
  if (op === '!=') return !equal(a, b);
  let x: number | string;
  let y: number | string;
  if (typeof a === 'string' && typeof b === 'string') {
    x = a;
    y = b;
  } else {
    if (a == null || b == null || typeof a === 'object' || typeof b === 'object') return false;
    x = Number(a);
    y = Number(b);
    if (Number.isNaN(x) || Number.isNaN(y)) return false;
  }
  switch (op) {
    case '<':
      return x < y;
    case '<=':
      return x <= y;
    case '>':
      return x > y;
    case '>=':
      return x >= y;
  }
}

function equal(a: unknown, b: unknown): boolean {
  if (a == null || b == null) return a == null && b == null;
  if (typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => equal(v, b[i]));
  }
  const ak = Object.keys(a);
  const bk = Object.keys(b);
  if (ak.length !== bk.length) return false;
  const ar = a as Record<string, unknown>;
  const br = b as Record<string, unknown>;
  return ak.every((k) => Object.hasOwn(br, k) && equal(ar[k], br[k]));
}
