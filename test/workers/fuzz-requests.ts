/**
 * Hostile requests for the fuzz test, from a seeded PRNG so a failure replays: every route of the
 * app (src/http/app.ts, src/http/routes/*) with empty, mistyped, unparseable, oversized, deeply
 * nested, unicode and out-of-range bodies, query parameters, ids and tokens.
 */

/** mulberry32: a tiny, well-known 32-bit PRNG; the same seed gives the same requests. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rng = () => number;
export type FuzzRequest = {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Sent to an app with API_TOKEN set (see AUTH_HEADERS) instead of the test Worker, which has none. */
  withApiToken?: boolean;
};

const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
const chance = (rng: Rng, p: number) => rng() < p;

/** Raw JSON text spliced in where a placeholder string was serialized (JSON.stringify recurses). */
const RAW = '\u0000raw:';

function raw(text: string): string {
  return RAW + text;
}

/** JSON text for a value whose strings may be RAW placeholders. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0000raw:((?:[^"\\]|\\.)*)"/g, (_m, s: string) =>
    JSON.parse(`"${s}"`),
  );
}

/** `levels` arrays or objects around a value, as JSON text. */
export function nested(levels: number, objects: boolean): string {
  return objects
    ? '{"a":'.repeat(levels) + '1' + '}'.repeat(levels)
    : '['.repeat(levels) + ']'.repeat(levels);
}

const STRINGS = [
  '',
  ' ',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e999',
  'null',
  'undefined',
  'true',
  '__proto__',
  'constructor',
  '{{ steps.a.output }}',
  '{{',
  '}}{{ input.__proto__.x }}',
  '†state.x',
  '$1',
  '${99999999999}',
  '\u0000',
  '\ud800',
  '\udfff\ud800',
  '\u202e\u200b\ufeff',
  '🙂👩‍👩‍👧‍👦',
  'ﷺ𒐫',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "'; DROP TABLE runs; --",
  'run_',
  'apv_',
  'demo.echo',
  'http://169.254.169.254/latest/meta-data/',
];

export const NUMBERS = [
  0,
  -0,
  -1,
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

/** JSON number text JSON.stringify cannot write: Infinity after parsing, or digits past a double. */
const RAW_NUMBERS = ['1e999', '-1e999', '1e-999', '123456789012345678901234567890', '-0.0e0'];

/** Import sources (`format` + `source`) nested deep, for the parsers that read them. */
function deepSource(rng: Rng): string {
  const n = 1 + Math.floor(rng() * 10_000);
  return pick(rng, [
    `1. demo.echo(x=${'['.repeat(n)}1${']'.repeat(n)})\n2. join()`,
    `1. demo.echo(x=${'{"a": '.repeat(n)}1${'}'.repeat(n)})\n2. join()`,
    `nodes:\n  - name: a\n    uses: demo.echo\n    with:\n      x: ${'['.repeat(n)}${']'.repeat(n)}\n`,
    `nodes:\n  - name: a\n    uses: demo.echo\n    with:\n      x:\n        ${'- '.repeat(n)}1\n`,
    `a: &a [*a, *a]\nb: &b [*a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b]`,
  ]);
}

/** A hostile value: wrong type, out of range, odd text, deep or big. */
export function hostileValue(rng: Rng): unknown {
  const r = rng();
  if (r < 0.05) return deepSource(rng);
  if (r < 0.25) return pick(rng, STRINGS);
  if (r < 0.45) return pick(rng, NUMBERS);
  if (r < 0.5) return raw(pick(rng, RAW_NUMBERS));
  if (r < 0.6) return pick(rng, [null, true, false, [], {}, [null], { '': null }]);
  if (r < 0.7) return raw(nested(1 + Math.floor(rng() ** 3 * 10_000), chance(rng, 0.5)));
  if (r < 0.75) return pick(rng, ['x', '🙂', '\ud800', '{']).repeat(1 + Math.floor(rng() ** 4 * 300_000));
  if (r < 0.8) return Array.from({ length: Math.floor(rng() * 5000) }, () => pick(rng, NUMBERS));
  if (r < 0.85) return raw('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}}');
  if (r < 0.9) return { [pick(rng, STRINGS)]: pick(rng, STRINGS) };
  return pick(rng, STRINGS) + String(Math.floor(rng() * 1e9));
}

const step = (id: string, deps: string[] = []) => ({
  id,
  action: 'demo.echo',
  parameters: { id },
  dependencies: deps,
});
const PLAN = { goal: 'fuzz', steps: [step('a'), step('b', ['a'])] };
const CONFIG = {
  execution_mode: 'parallel',
  max_parallel: 2,
  step_timeout: 5,
  retry_failed_steps: 1,
  retry_delay: 0.1,
  max_revisions: 1,
  revision_threshold: 0.5,
  require_plan_approval: false,
  approval: { timeout_s: 60, default_action: 'reject' },
  token_budget: 1000,
  mode: 'lazy',
  max_steps: 20,
  max_depth: 3,
  stages: [{ name: 's', prompt: 'p', tools: ['demo.echo'], max_tokens: 10 }],
};
const TEA = 'nodes:\n  - name: a\n    uses: demo.echo\n    with: { text: "{{ state.x }}" }\n';
const LLMC = '1. demo.echo(text="hi")\n2. demo.echo(text=$1)\n3. join()';

/** A valid body per POST route, to mutate one field at a time (so deeper code is reached). */
export const VALID_BODIES: Record<string, (rng: Rng) => unknown> = {
  runs: (rng) =>
    pick(rng, [
      { plan: PLAN, config: CONFIG, input: { x: 1 } },
      { plan: [{ _tool: 'demo.echo', text: '†input.x', _outputPath: '†state.y' }], config: { mode: 'lazy' } },
      { format: 'tea-yaml', source: TEA, input: { x: 1 }, config: { mode: 'lazy' } },
      { format: 'llmcompiler', source: LLMC, config: { mode: 'lazy' } },
      { goal: 'fetch https://example.com then echo done', config: { mode: 'lazy' } },
      { plan: PLAN, config: { require_plan_approval: true, approval: { timeout_s: 60 } } },
      {
        plan: PLAN,
        config: { execution_mode: 'parallel', step_timeout: 5, retry_delay: 0.1, max_parallel: 2 },
      },
    ]),
  validate: () => ({ plan: PLAN, config: { max_steps: 10, require_dependencies: true }, input: { x: 1 } }),
  plans: () => ({ goal: 'echo hello', strategy: 'flat', max_steps: 5, max_depth: 2, tools: ['demo.echo'] }),
  approval: (rng) =>
    pick(rng, [
      { decision: 'approve', comment: 'ok' },
      { decision: 'reject' },
      { decision: 'modify', plan: PLAN },
      {
        decision: 'modify',
        edits: [{ op: 'update_step', step_id: 'b', changes: { parameters: { id: 'x' } } }],
      },
      { decision: 'modify', edits: [{ op: 'add_step', step: step('c', ['b']), after: 'b' }] },
      { decision: 'modify', edits: [{ op: 'move_step', step_id: 'a', to_index: 1 }] },
      { decision: 'modify', edits: [{ op: 'set_dependencies', step_id: 'b', dependencies: [] }] },
      { decision: 'modify', edits: [{ op: 'remove_step', step_id: 'b' }] },
    ]),
  input: () => ({ input: { answer: 'yes' } }),
  replan: () => ({ reason: 'because' }),
  rollback: () => ({ version: 1 }),
  cancel: () => ({ reason: 'stop' }),
  retry: () => ({ step_id: 'a' }),
};

/** Replaces, adds or removes one field somewhere in `value` (objects and arrays, a few levels down). */
export function mutate(rng: Rng, value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || (depth > 0 && chance(rng, 0.3))) {
    return hostileValue(rng);
  }
  if (Array.isArray(value)) {
    if (value.length === 0 || chance(rng, 0.15)) return [...value, hostileValue(rng)];
    const i = Math.floor(rng() * value.length);
    return value.map((v: unknown, j) => (j === i ? mutate(rng, v, depth + 1) : v));
  }
  const obj = { ...(value as Record<string, unknown>) };
  const keys = Object.keys(obj);
  const r = rng();
  if (keys.length === 0 || r < 0.1)
    obj[pick(rng, ['unknown_field', '__proto__', 'constructor', '', '🙂'])] = hostileValue(rng);
  else if (r < 0.2) delete obj[pick(rng, keys)];
  else {
    const k = pick(rng, keys);
    obj[k] = mutate(rng, obj[k], depth + 1);
  }
  return obj;
}

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/vnd.edgeplan+json',
  'application/jsonp',
  'json',
  '',
];
const BAD_TEXT = [
  '{',
  '}',
  '[1,]',
  '{"a":1,}',
  'nul',
  "{'a': 1}",
  '\ufeff{}',
  '"unterminated',
  '{"a":1}{"b":2}',
  'NaN',
];

/** A body for a POST route: mostly a mutated valid one, else empty, blank, unparseable or deep. */
export function hostileBody(rng: Rng, route: string): { body?: string; headers: Record<string, string> } {
  const json = { 'Content-Type': 'application/json' };
  const r = rng();
  if (r < 0.05) return { headers: json };
  if (r < 0.1)
    return { body: pick(rng, ['', ' ', '\n\t\r ', '\u00a0']), headers: chance(rng, 0.5) ? json : {} };
  if (r < 0.15)
    return {
      body: toJsonText(VALID_BODIES[route]!(rng)),
      headers: { 'Content-Type': pick(rng, CONTENT_TYPES) },
    };
  if (r < 0.2) return { body: pick(rng, BAD_TEXT), headers: json };
  if (r < 0.25) return { body: nested(1 + Math.floor(rng() * 10_000), chance(rng, 0.5)), headers: json };
  if (r < 0.3) return { body: toJsonText(hostileValue(rng)), headers: json };
  if (r < 0.31) return { body: `{"input": "${'x'.repeat(5 * 1024 * 1024)}"}`, headers: json };
  let body = VALID_BODIES[route]!(rng);
  const mutations = 1 + Math.floor(rng() * 3);
  for (let i = 0; i < mutations; i++) body = mutate(rng, body);
  return { body: toJsonText(body), headers: json };
}

const QUERY_VALUES = [
  '',
  '-1',
  '0',
  '1',
  '1e999',
  'NaN',
  'Infinity',
  '1.5',
  '99999999999999999999',
  'true',
  'x',
  '%00',
  '🙂',
];

/** Percent-encoded; a lone surrogate, which cannot be, becomes bytes that are not UTF-8. */
export function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

/** Query text sent as is: broken percent-escapes. */
const RAW_QUERY_VALUES = ['%', '%zz', '%ED%A0%80', '%00', '+%2B+'];

/** A query string with the route's parameters given hostile values (and an unknown one). */
export function hostileQuery(rng: Rng, params: readonly string[]): string {
  const parts: string[] = [];
  for (const p of params) {
    if (chance(rng, 0.1)) parts.push(`${p}=${pick(rng, RAW_QUERY_VALUES)}`);
    else if (chance(rng, 0.6)) parts.push(`${p}=${encode(pick(rng, [...QUERY_VALUES, ...STRINGS]))}`);
  }
  if (chance(rng, 0.1)) parts.push(`unknown=${encode(pick(rng, STRINGS))}`);
  if (chance(rng, 0.05)) parts.push(`${params[0] ?? 'x'}=1&${params[0] ?? 'x'}=2`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** Run ids that cannot exist, or cannot even be run ids. */
export const BOGUS_IDS = [
  'run_0000000000000000',
  'run_',
  'run_' + 'a'.repeat(65),
  'not-a-run',
  'run_%F0%9F%99%82',
  '%2E%2E',
  'run_abc%2Fplans',
  encodeURIComponent('run_\u0000'),
  encodeURIComponent('\ud83d\ude42'),
  'RUN_ABC',
];

export const BOGUS_TOKENS = ['', 'apv_', 'apv_bogus', 'x'.repeat(300), '%00', 'apv_' + 'A'.repeat(43), '🙂'];

/** The numeric run-config fields (and their seed aliases) as paths into `config`, and a step's timeout. */
export const CONFIG_NUMBERS = [
  ['max_parallel'],
  ['step_timeout'],
  ['retry_failed_steps'],
  ['retry_delay'],
  ['max_revisions'],
  ['revision_threshold'],
  ['token_budget'],
  ['max_steps'],
  ['max_depth'],
  ['approval', 'timeout_s'],
  ['stages', 0, 'max_tokens'],
  ['max_concurrent'],
  ['max_retries'],
  ['max_replans'],
  ['max_subtasks'],
  ['max_decomposition_depth'],
  ['step', 'timeout_ms'],
  ['step', 'retries'],
  ['step', 'estimated_tokens'],
] as const;

/** A run that starts at once (not a dry run), with `value` at `path` in its config (or its last step). */
export function configBody(path: readonly (string | number)[], value: unknown, approval: boolean): string {
  const config: Record<string, unknown> = { execution_mode: 'parallel', require_plan_approval: approval };
  const steps: Record<string, unknown>[] = [...PLAN.steps];
  const [first, second, third] = path;
  if (first === 'step') steps.push({ ...step('t', ['a']), [second!]: value });
  else if (first === 'approval') config.approval = { [second!]: value };
  else if (first === 'stages')
    Object.assign(config, { strategy: 'staged', stages: [{ name: 's', [third!]: value }] });
  else config[first!] = value;
  return toJsonText({ plan: { ...PLAN, steps }, config });
}

/** The API token the fuzz sets on some requests, and Authorization headers to send with it. */
export const API_TOKEN = 'fuzz-token';
export const AUTH_HEADERS = [
  undefined,
  `Bearer ${API_TOKEN}`,
  'Bearer wrong',
  'Bearer',
  `bearer   ${API_TOKEN}  `,
  'Basic dXNlcjpwYXNz',
  `Bearer ${API_TOKEN} extra`,
  'x'.repeat(10_000),
];
