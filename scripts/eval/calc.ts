/**
 * Arithmetic for the `eval.calc` tool: numbers, `+ - * / %`, `^` (or `**`) for powers, unary minus
 * and parentheses. A small recursive-descent parser — never `eval`, since the text comes from a
 * model (and from the step outputs its references pull in).
 */

/** Why an expression could not be computed; the message quotes it and says where. */
export class CalcError extends Error {
  override readonly name = 'CalcError';
}

/**
 * The value of `expression`.
 * @example evaluate('(17 + 25) * 3 / 7') // 18
 */
export function evaluate(expression: string): number {
  const tokens = tokenize(expression);
  let pos = 0;
  const peek = (): string | undefined => tokens[pos];
  const fail = (what: string): never => {
    throw new CalcError(`Cannot compute "${expression}": ${what}`);
  };
  const take = (): string => tokens[pos++] ?? fail('it ends too early');

  // sum := product (('+' | '-') product)*
  const sum = (): number => {
    let v = product();
    for (let op = peek(); op === '+' || op === '-'; op = peek()) {
      pos++;
      v = op === '+' ? v + product() : v - product();
    }
    return v;
  };
  // product := unary (('*' | '/' | '%') unary)*
  const product = (): number => {
    let v = unary();
    for (let op = peek(); op === '*' || op === '/' || op === '%'; op = peek()) {
      pos++;
      const r = unary();
      if ((op === '/' || op === '%') && r === 0) fail('division by zero');
      v = op === '*' ? v * r : op === '/' ? v / r : v % r;
    }
    return v;
  };
  // unary := ('-' | '+') unary | power   (so -2^2 is -(2^2), as in mathematics)
  const unary = (): number => {
    const sign = peek();
    if (sign === '-' || sign === '+') {
      pos++;
      return sign === '-' ? -unary() : unary();
    }
    return power();
  };
  // power := atom ('^' unary)?   (right-associative: 2^3^2 is 2^9)
  const power = (): number => {
    const base = atom();
    if (peek() !== '^') return base;
    pos++;
    return base ** unary();
  };
  const atom = (): number => {
    const t = take();
    if (t === '(') {
      const v = sum();
      if (take() !== ')') fail('a "(" is never closed');
      return v;
    }
    const n = Number(t);
    return Number.isFinite(n) ? n : fail(`unexpected "${t}"`);
  };

  const value = sum();
  if (pos < tokens.length) fail(`unexpected "${tokens[pos]}" at token ${pos + 1}`);
  if (!Number.isFinite(value)) fail('the result is not a finite number');
  return value;
}

const TOKEN = /\s*(\d+(?:\.\d+)?(?:e[+-]?\d+)?|\.\d+|\*\*|[-+*/%^()])/iy;

function tokenize(expression: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < expression.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(expression);
    if (!m) {
      if (expression.slice(at).trim() === '') break;
      throw new CalcError(`Cannot compute "${expression}": unexpected "${expression.slice(at).trim()[0]}"`);
    }
    tokens.push(m[1] === '**' ? '^' : m[1]!);
  }
  if (tokens.length === 0) throw new CalcError('Cannot compute an empty expression');
  return tokens;
}
