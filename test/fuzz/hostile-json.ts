/**
 * Hostile JSON for the fuzz tests, as fast-check arbitraries: values of the wrong type, numbers at
 * the edges of a double, unicode edge cases (lone surrogates, NUL, right-to-left marks), huge strings
 * and arrays, deep nesting, `__proto__`/`constructor`/`prototype` keys, duplicate keys, number text
 * no double holds and import sources (LLMCompiler, TEA YAML) nested deep or built to blow up when
 * parsed — and a structural mutation of a valid value (replace, remove or add a field
 * somewhere in it). {@link RawJson} carries JSON text that `JSON.stringify` cannot write.
 */
import fc from 'fast-check';

/** JSON text spliced in as is by {@link jsonText}. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** `value` as JSON text, {@link RawJson} parts spliced in; own `__proto__` keys are written too. */
export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .map((k) => `${JSON.stringify(k)}:${jsonText((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Keys that reach for an object's prototype, and other odd ones. */
export const ODD_KEYS = ['__proto__', 'constructor', 'prototype', '', ' ', '🙂', '\u0000', 'unknown_field'];

export const ODD_STRINGS = [
  '',
  ' ',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '1e308',
  '1e999',
  'null',
  'undefined',
  'true',
  '__proto__',
  'constructor',
  'prototype',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800',
  'x\udc00',
  '\u202e\u200b\ufeff',
  '\u202egnp.exe',
  'مرحبا\u200f',
  '🙂👩‍👩‍👧‍👦',
  '\u0301\u0301\u0301',
  'ﷺ𒐫',
  '{{ steps.a.output }}',
  '{{',
  '{{ input.__proto__.x }}',
  '}}{{ input.__proto__.x }}',
  '†state.x',
  '$1',
  '${99999999999}',
  // Prefixes and names the API gives meaning to.
  'run_',
  'apv_',
  'demo.echo',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "'; DROP TABLE runs; --",
  'http://169.254.169.254/latest/meta-data/',
];

/** Numbers at the edges: -0, the largest and smallest doubles, past 2^53, non-integers. */
export const EDGE_NUMBERS = [
  0,
  -0,
  -1,
  0.5,
  1.5,
  -1.5,
  1e308,
  -1e308,
  5e-324,
  2 ** 31,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  Number.MAX_SAFE_INTEGER,
  4294967296,
];

/** Number text JSON allows but no double holds (Infinity after parsing) or -0 spelled out. */
const RAW_NUMBERS = ['1e999', '-1e999', '1e-999', '123456789012345678901234567890', '-0.0e0', '1E+2'];

/** `levels` arrays or objects around a value. */
export function nestedText(levels: number, objects: boolean): string {
  return objects
    ? '{"a":'.repeat(levels) + '1' + '}'.repeat(levels)
    : '['.repeat(levels) + ']'.repeat(levels);
}

/**
 * Import sources (a run's `source` beside `format`) for the parsers that read them: a value nested
 * `levels` deep in an LLMCompiler call or TEA YAML (flow and block style), and a YAML alias bomb.
 */
export function deepSource(levels: number, kind: number): string {
  const n = levels;
  return [
    `1. demo.echo(x=${'['.repeat(n)}1${']'.repeat(n)})\n2. join()`,
    `1. demo.echo(x=${'{"a": '.repeat(n)}1${'}'.repeat(n)})\n2. join()`,
    `nodes:\n  - name: a\n    uses: demo.echo\n    with:\n      x: ${'['.repeat(n)}${']'.repeat(n)}\n`,
    `nodes:\n  - name: a\n    uses: demo.echo\n    with:\n      x:\n        ${'- '.repeat(n)}1\n`,
    `a: &a [*a, *a]\nb: &b [*a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b]`,
  ][kind % 5]!;
}

/** A hostile JSON value (possibly {@link RawJson}). */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...ODD_STRINGS) },
  { weight: 3, arbitrary: fc.constantFrom(...EDGE_NUMBERS) },
  { weight: 1, arbitrary: fc.constantFrom(...RAW_NUMBERS).map((t) => new RawJson(t)) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], { '': null }) },
  // Any string, lone surrogates and all.
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  // Import sources nested deep (below and past the parsers' limits), or an alias bomb.
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(1, 63, 64, 65, 1000, 10_000), fc.nat(4))
      .map(([levels, kind]) => deepSource(levels, kind)),
  },
  // Deep nesting, below and past the API's limit.
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(2, 63, 64, 65, 100, 1000, 5000), fc.boolean())
      .map(([n, objects]) => new RawJson(nestedText(n, objects))),
  },
  // Huge strings and arrays.
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('x', '🙂', '\ud800', '{', '\u0000'), fc.constantFrom(1_000, 70_000, 300_000))
      .map(([s, n]) => s.repeat(n)),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(100, 10_000, 50_000)
      .map((n) => new RawJson(`[${Array(n).fill('0').join(',')}]`)),
  },
  // Keys that reach for the prototype, and duplicate keys.
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      new RawJson('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}}'),
      new RawJson('{"a": 1, "a": 2}'),
      new RawJson('{"__proto__": null}'),
      new RawJson('{"toString": 1, "valueOf": 2, "hasOwnProperty": 3}'),
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...ODD_KEYS), fc.constantFrom(...ODD_STRINGS))
      .map(([k, v]) => Object.fromEntries([[k, v]])),
  },
);

/** One structural change at the `at`-th node (in document order) of a value. */
type Mutation = { at: number; kind: 'replace' | 'remove' | 'add' | 'duplicate'; key: string; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('replace', 'replace', 'replace', 'remove', 'add', 'duplicate'),
  key: fc.constantFrom(...ODD_KEYS),
  value: hostileValue,
});

/** Every object and array in `value`, parents first. */
function containers(value: unknown, out: object[] = []): object[] {
  if (value === null || typeof value !== 'object' || value instanceof RawJson) return out;
  out.push(value);
  for (const child of Object.values(value)) containers(child, out);
  return out;
}

/** A deep copy (RawJson kept, own `__proto__` keys kept). */
function copy(value: unknown): unknown {
  if (value instanceof RawJson || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copy);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copy(v)]));
}

function apply(value: unknown, m: Mutation): unknown {
  const root = copy(value);
  const nodes = containers(root);
  if (nodes.length === 0) return m.value;
  const node = nodes[m.at % nodes.length]! as Record<string, unknown>;
  const keys = Object.keys(node);
  const key = keys.length ? keys[m.at % keys.length]! : m.key;
  if (Array.isArray(node) && (m.kind === 'add' || keys.length === 0)) node.push(m.value);
  else if (m.kind === 'add' || keys.length === 0)
    Object.defineProperty(node, m.key, {
      value: m.value,
      enumerable: true,
      configurable: true,
      writable: true,
    });
  else if (m.kind === 'remove') {
    if (Array.isArray(node)) node.splice(Number(key), 1);
    else delete node[key];
  } else if (m.kind === 'duplicate' && !Array.isArray(node)) {
    // The key again, after the others: JSON.parse keeps the last.
    const rest = Object.fromEntries(Object.entries(node).filter(([k]) => k !== key));
    const text = jsonText(rest);
    const dup = `${JSON.stringify(key)}:${jsonText(node[key])},${JSON.stringify(key)}:${jsonText(m.value)}`;
    const spliced = new RawJson(text === '{}' ? `{${dup}}` : `${text.slice(0, -1)},${dup}}`);
    if (node === root) return spliced;
    const parent = nodes.find((p) => Object.values(p).includes(node)) as Record<string, unknown>;
    const pk = Object.keys(parent).find((k) => parent[k] === node)!;
    parent[pk] = spliced;
  } else node[key] = m.value;
  return root;
}

/** `valid` with one to three structural mutations, or (2 times in 7) as it is. */
export function mutated(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const mutations = fc.oneof(
    { weight: 2, arbitrary: fc.constant([]) },
    { weight: 5, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }) },
  );
  return fc.tuple(valid, mutations).map(([v, ms]) => ms.reduce((acc, m) => apply(acc, m), v));
}
