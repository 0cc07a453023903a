/**
 * The argument list of an LLMCompiler call, `tool(1, "x", key=[1, 2], other={"a": $1})`: Python
 * literals (strings, numbers, True/False/None, lists, tuples, dicts) and `$N` / `${N}` step
 * references. A bare `$N` becomes the reference string `{{ steps.N.output }}`; `$N` inside a string
 * is left for the importer to rewrite. Reads from `(` to its matching `)`, across lines if it must;
 * lists and dicts may nest up to MAX_NESTING_DEPTH levels.
 */
import { MAX_NESTING_DEPTH } from '../nesting';

/** Parsed arguments, or where and why parsing stopped (`at` is an offset into the source). */
export type CallArgs =
  | { ok: true; args: unknown[]; kwargs: Record<string, unknown>; end: number }
  | { ok: false; at: number; message: string };

class ArgError extends Error {
  override readonly name = 'ArgError';
  readonly at: number;
  constructor(at: number, message: string) {
    super(message);
    this.at = at;
  }
}

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/y;
const REF = /\$(?:\{(\d+)\}|(\d+))/y;
const KEYWORD = /([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)/y;
const CONSTANTS: Record<string, unknown> = {
  True: true,
  False: false,
  None: null,
  true: true,
  false: false,
  null: null,
};
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', f: '\f' };

/**
 * Parses the arguments of a call whose `(` is at `open`; `end` is the offset just past its `)`.
 * @example parseCallArgs('f(1, q="x")', 1) // { ok: true, args: [1], kwargs: { q: 'x' }, end: 11 }
 */
export function parseCallArgs(src: string, open: number): CallArgs {
  const p = new ArgParser(src, open + 1);
  try {
    const args: unknown[] = [];
    const kwargs: Record<string, unknown> = {};
    p.skip();
    while (!p.eat(')')) {
      if (p.done()) throw new ArgError(open, 'this "(" is never closed with ")"');
      KEYWORD.lastIndex = p.pos;
      const kw = KEYWORD.exec(src);
      if (kw) {
        const name = kw[1]!;
        if (Object.hasOwn(kwargs, name)) throw new ArgError(p.pos, `argument "${name}" is given twice`);
        p.pos = KEYWORD.lastIndex;
        p.skip();
        setOwn(kwargs, name, p.value());
      } else {
        if (Object.keys(kwargs).length > 0) {
          throw new ArgError(p.pos, 'a positional argument cannot follow keyword arguments');
        }
        args.push(p.value());
      }
      p.skip();
      // At the end of the text, the loop reports the unclosed "(" instead.
      if (!p.eat(',') && p.peek() !== ')' && !p.done()) throw p.expected('"," or ")"');
      p.skip();
    }
    return { ok: true, args, kwargs, end: p.pos };
  } catch (e) {
    if (e instanceof ArgError) return { ok: false, at: e.at, message: e.message };
    throw e;
  }
}

class ArgParser {
  pos: number;
  readonly #src: string;
  /** Lists and dicts open around the current value; past MAX_NESTING_DEPTH parsing stops. */
  #depth = 0;

  constructor(src: string, pos: number) {
    this.#src = src;
    this.pos = pos;
  }

  done(): boolean {
    return this.pos >= this.#src.length;
  }

  peek(): string {
    return this.#src[this.pos] ?? '';
  }

  eat(c: string): boolean {
    if (this.#src[this.pos] !== c) return false;
    this.pos++;
    return true;
  }

  /** Skips whitespace, newlines included (arguments may span lines). */
  skip(): void {
    while (/\s/.test(this.peek())) this.pos++;
  }

  expected(what: string): ArgError {
    const got = this.done() ? 'the end of the plan' : JSON.stringify(this.peek());
    return new ArgError(this.pos, `expected ${what}, found ${got}`);
  }

  value(): unknown {
    const c = this.peek();
    if (c === '"' || c === "'") return this.string();
    if (c === '[') return this.sequence(']');
    if (c === '(') return this.sequence(')');
    if (c === '{') return this.dict();
    if (c === '$') return this.ref();
    NUMBER.lastIndex = this.pos;
    const num = NUMBER.exec(this.#src);
    if (num) {
      this.pos = NUMBER.lastIndex;
      return Number(num[0]);
    }
    IDENT.lastIndex = this.pos;
    const word = IDENT.exec(this.#src);
    if (word) {
      if (Object.hasOwn(CONSTANTS, word[0])) {
        this.pos = IDENT.lastIndex;
        return CONSTANTS[word[0]];
      }
      throw new ArgError(this.pos, `unquoted word "${word[0]}": put text in quotes, refer to step N as $N`);
    }
    throw this.expected('a value (a string, number, True/False/None, list, dict or $N)');
  }

  ref(): string {
    REF.lastIndex = this.pos;
    const m = REF.exec(this.#src);
    if (!m) throw new ArgError(this.pos, 'a "$" outside quotes must be a step reference: $N or ${N}');
    this.pos = REF.lastIndex;
    return `{{ steps.${m[1] ?? m[2]}.output }}`;
  }

  string(): string {
    const start = this.pos;
    const q = this.peek();
    const triple = this.#src.startsWith(q.repeat(3), this.pos);
    const close = triple ? q.repeat(3) : q;
    this.pos += close.length;
    let out = '';
    for (;;) {
      if (this.done()) throw new ArgError(start, 'this string is never closed');
      const c = this.#src[this.pos]!;
      if (this.#src.startsWith(close, this.pos)) {
        this.pos += close.length;
        return out;
      }
      if (c === '\n' && !triple) throw new ArgError(start, 'this string is not closed on its line');
      if (c === '\\') {
        const next = this.#src[this.pos + 1] ?? '';
        if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(this.#src.slice(this.pos + 2, this.pos + 6))) {
          out += String.fromCharCode(parseInt(this.#src.slice(this.pos + 2, this.pos + 6), 16));
          this.pos += 6;
          continue;
        }
        out += ESCAPES[next] ?? next;
        this.pos += 2;
        continue;
      }
      out += c;
      this.pos++;
    }
  }

  /** Enters a list or dict at `start`; refused past the limit, before the recursion can overflow. */
  enter(start: number): void {
    if (++this.#depth > MAX_NESTING_DEPTH) {
      throw new ArgError(
        start,
        `lists and dicts nest more than ${MAX_NESTING_DEPTH} levels deep here; the limit is ${MAX_NESTING_DEPTH}`,
      );
    }
  }

  sequence(close: string): unknown[] {
    const start = this.pos++;
    this.enter(start);
    const out: unknown[] = [];
    this.skip();
    while (!this.eat(close)) {
      if (this.done())
        throw new ArgError(start, `this "${this.#src[start]}" is never closed with "${close}"`);
      out.push(this.value());
      this.skip();
      if (!this.eat(',') && this.peek() !== close && !this.done()) throw this.expected(`"," or "${close}"`);
      this.skip();
    }
    this.#depth--;
    return out;
  }

  dict(): Record<string, unknown> {
    const start = this.pos++;
    this.enter(start);
    const out: Record<string, unknown> = {};
    this.skip();
    while (!this.eat('}')) {
      if (this.done()) throw new ArgError(start, 'this "{" is never closed with "}"');
      const keyAt = this.pos;
      const key = this.value();
      if (typeof key !== 'string' && typeof key !== 'number') {
        throw new ArgError(keyAt, 'a dict key must be a string or a number');
      }
      this.skip();
      if (!this.eat(':')) throw this.expected('":"');
      this.skip();
      setOwn(out, String(key), this.value());
      this.skip();
      if (!this.eat(',') && this.peek() !== '}' && !this.done()) throw this.expected('"," or "}"');
      this.skip();
    }
    this.#depth--;
    return out;
  }
}

/** Sets a key as an own property, so a key such as `__proto__` is data, not the prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
