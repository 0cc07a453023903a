/**
 * References inside step parameters (SPEC §2): `{{ steps.<id>.output… }}`, `{{ state.… }}`,
 * `{{ input.… }}`. Parsing, the seed-004 (`†state.x`) and LLMCompiler (`$1`) notations normalised on
 * import, output paths (`state.ok || state.err`), and resolution to concrete values.
 *
 * Grammar of the expression inside `{{ }}` (whitespace around it is optional):
 * - `steps.<id>.output` then a path; `steps['odd.id'].output` for ids containing `.output`.
 *   `steps.<id>` alone is read leniently as `steps.<id>.output` (LLMs write it; LLMCompiler's `$1`
 *   means exactly that). Anything else after the id (`steps.a.items`) parses as the id `a.items`,
 *   which validation then reports with a hint.
 * - `state` / `input`, then a path (`state` alone is the whole state).
 * - A path is `.name`, `[0]`, `['any key']` or `["any key"]`; `.0` is the same as `[0]`.
 *   Names are letters, digits, `_`, `$`, `-` and non-ASCII characters.
 */
import { STEP_ID_PATTERN, isRecord } from './model';

export type RefSource = 'steps' | 'state' | 'input';
export type PathSegment = string | number;

/**
 * One parsed reference. For `steps`, `stepId` names the step and `path` is what follows `.output`
 * (`{{ steps.search.output.items[0].url }}` → stepId "search", path ["items", 0, "url"]).
 * For `state`/`input`, `path` is everything after the root (`{{ state.a.b }}` → ["a", "b"]).
 */
export type Reference = {
  source: RefSource;
  stepId?: string;
  path: PathSegment[];
  /** The reference as written, braces included when it had them. */
  text: string;
  /** Where it sits inside the value given to {@link collectReferences} (after its `base`). */
  at?: PathSegment[];
  /** True when the string holding it is exactly this reference, so it keeps the value's type. */
  whole?: boolean;
};

/** A reference that does not parse, with where it sits in the parameters. */
export type ReferenceError = { message: string; path: PathSegment[] };

export type ParsedPath = { ok: true; ref: Reference } | { ok: false; message: string };

/**
 * Parses a bare reference expression (`steps.a.output.x`, `state.a[0]`, `input`), without braces.
 * @example parseReferenceExpression('state.user.name') // { ok: true, ref: { source: 'state', path: ['user', 'name'], … } }
 */
export function parseReferenceExpression(expr: string, text: string = expr): ParsedPath {
  const parsed = parseRange(expr, 0, expr.length);
  if (typeof parsed === 'string') return { ok: false, message: `Bad reference ${text}: ${parsed}` };
  parsed.text = text;
  return { ok: true, ref: parsed };
}

/**
 * Parses the expression in `s` between `start` and `end` (no slicing of the whole: this runs for
 * every reference of every step). Returns the reference, with `text` still to fill in, or why not.
 */
function parseRange(s: string, start: number, end: number): Reference | string {
  let root = start;
  while (root < end && isNameChar(s.charCodeAt(root))) root++;
  const source: RefSource | null =
    root - start !== 5
      ? null
      : s.startsWith('steps', start)
        ? 'steps'
        : s.startsWith('state', start)
          ? 'state'
          : s.startsWith('input', start)
            ? 'input'
            : null;
  if (source === null) {
    if (start === end) return 'it is empty';
    return `unknown root "${s.slice(start, root) || s[start]}" (expected steps., state. or input.)`;
  }
  if (source !== 'steps') {
    const tail = parsePathTail(s, root, end, start);
    return typeof tail === 'string' ? tail : newReference(source, undefined, tail);
  }

  let stepId: string;
  let rest: number;
  const c = s.charCodeAt(root);
  if (c === 91 && (s[root + 1] === "'" || s[root + 1] === '"')) {
    const close = s.indexOf(s[root + 1]! + ']', root + 2);
    if (close < 0 || close + 2 > end) return 'unclosed step id bracket';
    stepId = s.slice(root + 2, close);
    rest = close + 2;
    if (rest < end) {
      if (!s.startsWith('.output', rest) || (rest + 7 < end && !isPathStart(s.charCodeAt(rest + 7)))) {
        return 'expected .output after the step id';
      }
      rest += 7;
    }
    if (!STEP_ID_PATTERN.test(stepId)) return `"${stepId}" is not a step id`;
  } else if (c === 46) {
    let idEnd = root + 1;
    while (idEnd < end && isStepIdChar(s.charCodeAt(idEnd))) idEnd++;
    const marker = findOutputMarker(s, root + 1, idEnd);
    if (marker >= 0) {
      stepId = s.slice(root + 1, marker);
      rest = marker + 7;
    } else if (idEnd === end) {
      stepId = s.slice(root + 1, idEnd); // lenient: `steps.x` means `steps.x.output`
      rest = idEnd;
    } else {
      return 'expected .output after the step id';
    }
    if (stepId.length === 0 || stepId.length > 64) return `"${stepId}" is not a step id`;
  } else {
    return 'expected a step id after "steps." (steps.<id>.output)';
  }
  const tail = parsePathTail(s, rest, end, start);
  return typeof tail === 'string' ? tail : newReference('steps', stepId, tail);
}

/** Every field present from the start: one object shape, no property store added later. */
function newReference(source: RefSource, stepId: string | undefined, path: PathSegment[]): Reference {
  return { source, stepId, path, text: '', at: undefined, whole: false };
}

function isPathStart(c: number): boolean {
  return c === 46 || c === 91;
}

/** Index in `s` of the `.output` ending a step id in [from, end) — followed by `end` or a `.` — or -1. */
function findOutputMarker(s: string, from: number, end: number): number {
  let k = s.indexOf('.output', from + 1);
  while (k >= 0 && k + 7 <= end) {
    if (k + 7 === end || s.charCodeAt(k + 7) === 46) return k;
    k = s.indexOf('.output', k + 1);
  }
  return -1;
}

/**
 * Parses `.a[0]['b c'].d` in `s` from `i` to `end`; a string is the reason it does not parse
 * (positions counted from `origin`).
 */
function parsePathTail(s: string, i: number, end: number, origin: number): PathSegment[] | string {
  // Segments go to a scratch array and are copied out at their exact size: an array grown by
  // push reserves 16 slots, which over 100k steps is most of validation's memory.
  const path = pathScratch;
  clearArray(path);
  while (i < end) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      let j = i + 1;
      let digits = true;
      while (j < end) {
        const d = s.charCodeAt(j);
        if (!isNameChar(d)) break;
        if (d < 48 || d > 57) digits = false;
        j++;
      }
      if (j === i + 1) return `expected a name after "." at position ${i - origin}`;
      path.push(digits && j - i < 16 ? Number(s.slice(i + 1, j)) : s.slice(i + 1, j));
      i = j;
    } else if (c === 91) {
      const q = s[i + 1];
      if (q === "'" || q === '"') {
        const close = s.indexOf(q + ']', i + 2);
        if (close < 0 || close + 2 > end) return `unclosed [${q} at position ${i - origin}`;
        path.push(s.slice(i + 2, close));
        i = close + 2;
      } else {
        let j = i + 1;
        while (j < end && s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57) j++;
        if (j === i + 1 || j - i > 16 || s.charCodeAt(j) !== 93 || j >= end) {
          return `expected [<index>] or ['<key>'] at position ${i - origin}`;
        }
        let index = 0;
        for (let k = i + 1; k < j; k++) index = index * 10 + s.charCodeAt(k) - 48;
        path.push(index);
        i = j + 1;
      }
    } else {
      return `unexpected "${s[i]}" at position ${i - origin}`;
    }
  }
  return path.length === 0 ? [] : path.slice();
}

const pathScratch: PathSegment[] = [];

/**
 * Empties a scratch array but keeps its capacity (`length = 0` drops the backing store, and the
 * next push allocates a fresh 17-slot one: ~150 bytes per reference on big plans).
 */
export function clearArray(a: unknown[]): void {
  while (a.length > 0) a.pop();
}

function isDigits(s: string): boolean {
  if (s.length === 0 || s.length > 15) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Letters, digits, `_`, `$`, `-`, and anything non-ASCII. */
export function isNameChar(c: number): boolean {
  return (
    (c >= 97 && c <= 122) ||
    (c >= 65 && c <= 90) ||
    (c >= 48 && c <= 57) ||
    c === 95 ||
    c === 36 ||
    c === 45 ||
    c >= 128
  );
}

function isStepIdChar(c: number): boolean {
  return (
    (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45 || c === 46
  );
}

/** Formats a path for messages: `items[0].url`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

type Found = { kind: 'ref'; start: number; end: number; ref: Reference } | { kind: 'error'; message: string };

/** Scans one string for `{{ … }}`; calls `emit` for each reference or malformed one, in order. */
function scanString(s: string, emit: (f: Found) => void): void {
  let open = s.indexOf('{{');
  while (open >= 0) {
    const close = s.indexOf('}}', open + 2);
    if (close < 0) {
      emit({ kind: 'error', message: `Bad reference: "{{" at position ${open} is never closed with "}}"` });
      return;
    }
    const nested = s.indexOf('{{', open + 2);
    if (nested >= 0 && nested < close) {
      emit({
        kind: 'error',
        message: `Bad reference: "{{" at position ${open} is not closed before the next "{{"`,
      });
      open = nested;
      continue;
    }
    const text = s.slice(open, close + 2);
    const parsed = parseBraced(s, open, close);
    if (typeof parsed === 'string') emit({ kind: 'error', message: `Bad reference ${text}: ${parsed}` });
    else {
      parsed.text = text;
      emit({ kind: 'ref', start: open, end: close + 2, ref: parsed });
    }
    open = s.indexOf('{{', close + 2);
  }
}

/** Parses the expression between `{{` at `open` and `}}` at `close`, spaces around it ignored. */
function parseBraced(s: string, open: number, close: number): Reference | string {
  let a = open + 2;
  let b = close;
  while (a < b && isSpace(s.charCodeAt(a))) a++;
  while (b > a && isSpace(s.charCodeAt(b - 1))) b--;
  return parseRange(s, a, b);
}

/** True when `s` (ignoring surrounding whitespace) is exactly the span [start, end). */
function spansWhole(s: string, start: number, end: number): boolean {
  for (let i = 0; i < start; i++) if (!isSpace(s.charCodeAt(i))) return false;
  for (let i = end; i < s.length; i++) if (!isSpace(s.charCodeAt(i))) return false;
  return true;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/**
 * Every reference in a value (walked deeply: objects, arrays, strings), plus the ones that do not parse.
 * `base` prefixes every `at` / error path (e.g. `['parameters']`).
 * @example collectReferences({ q: 'about {{ input.topic }}' }).refs[0].path // ['topic']
 */
export function collectReferences(
  value: unknown,
  base: readonly PathSegment[] = [],
): { refs: Reference[]; errors: ReferenceError[] } {
  const refs: Reference[] = [];
  const errors: ReferenceError[] = [];
  collectReferencesInto(value, base, refs, errors);
  return { refs, errors };
}

/** {@link collectReferences} appending to given arrays (the graph builder's allocation-free form). */
export function collectReferencesInto(
  value: unknown,
  base: readonly PathSegment[],
  refs: Reference[],
  errors: ReferenceError[],
): void {
  const acc = collector;
  acc.refs = refs;
  acc.errors = errors;
  clearArray(acc.at);
  for (let i = 0; i < base.length; i++) acc.at.push(base[i]!);
  collectInto(value, acc);
}

/**
 * Locations (`['parameters', 'url']`) are the same for every step of a big plan: they are shared,
 * frozen arrays rather than one copy per reference. The table is dropped when it grows large, so
 * plans with endless distinct keys cannot make it leak.
 */
type LocationNode = { location: readonly PathSegment[] | null; next: Map<PathSegment, LocationNode> | null };
let locations: LocationNode = { location: null, next: null };
let locationCount = 0;

function internLocation(at: readonly PathSegment[]): PathSegment[] {
  let node = locations;
  for (let i = 0; i < at.length; i++) {
    const seg = at[i]!;
    node.next ??= new Map();
    let child = node.next.get(seg);
    if (child === undefined) {
      if (++locationCount > 10_000) {
        locations = { location: null, next: null };
        locationCount = 0;
        return internLocation(at);
      }
      child = { location: null, next: null };
      node.next.set(seg, child);
    }
    node = child;
  }
  node.location ??= Object.freeze(at.slice());
  return node.location as PathSegment[];
}

/** Reused across calls (collection is synchronous and not re-entrant) to save two objects a step. */
const collector: Collector = { refs: [], errors: [], at: [] };

type Collector = { refs: Reference[]; errors: ReferenceError[]; at: PathSegment[] };

function collectInto(v: unknown, acc: Collector): void {
  if (typeof v === 'string') {
    if (v.indexOf('{{') >= 0) collectString(v, acc);
  } else if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      acc.at.push(i);
      collectInto(v[i], acc);
      acc.at.pop();
    }
  } else if (isRecord(v)) {
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      acc.at.push(k);
      collectInto(v[k], acc);
      acc.at.pop();
    }
  }
}

function collectString(s: string, acc: Collector): void {
  const first = acc.refs.length;
  let at: PathSegment[] | null = null;
  let open = s.indexOf('{{');
  while (open >= 0) {
    const close = s.indexOf('}}', open + 2);
    if (close < 0) {
      acc.errors.push({
        message: `Bad reference: "{{" at position ${open} is never closed with "}}"`,
        path: acc.at.slice(),
      });
      break;
    }
    const nested = s.indexOf('{{', open + 2);
    if (nested >= 0 && nested < close) {
      acc.errors.push({
        message: `Bad reference: "{{" at position ${open} is not closed before the next "{{"`,
        path: acc.at.slice(),
      });
      open = nested;
      continue;
    }
    const parsed = parseBraced(s, open, close);
    const text = s.slice(open, close + 2);
    if (typeof parsed === 'string') {
      acc.errors.push({ message: `Bad reference ${text}: ${parsed}`, path: acc.at.slice() });
    } else {
      parsed.text = text;
      parsed.at = at ??= internLocation(acc.at);
      parsed.whole = acc.refs.length === first && spansWhole(s, open, close + 2);
      acc.refs.push(parsed);
    }
    open = s.indexOf('{{', close + 2);
  }
  // A second reference in the same string makes the first one part of a text.
  if (acc.refs.length - first > 1) acc.refs[first]!.whole = false;
}

/** Where resolution reads from. `stepOutput` returns `{ found: false }` for a step with no output. */
export type RefScope = {
  stepOutput(stepId: string): { found: boolean; value?: unknown };
  state: Record<string, unknown>;
  input: unknown;
};

export type ResolveResult = { ok: true; value: unknown } | { ok: false; missing: Reference };

/** Reads one reference from a scope. */
export function readReference(ref: Reference, scope: RefScope): { found: boolean; value?: unknown } {
  if (ref.source === 'state') return getPath(scope.state, ref.path);
  if (ref.source === 'input') return getPath(scope.input, ref.path);
  const out = scope.stepOutput(ref.stepId ?? '');
  return out.found ? getPath(out.value, ref.path) : out;
}

/** Unwinds a resolution at the first reference to something never written. */
class Missing extends Error {
  override readonly name = 'Missing';
  readonly ref: Reference;
  constructor(ref: Reference) {
    super(`Nothing at ${ref.text}`);
    this.ref = ref;
  }
}

/**
 * Replaces every reference in `value` with what it points to. A string that is exactly one reference
 * keeps the referenced value's type; references inside longer text are interpolated (strings as they
 * are, anything else as JSON). A reference to something never written → `{ ok: false, missing }`
 * (the step is then skipped). Malformed `{{ … }}` text is left as it is (validation reports it).
 * @example resolveValue({ n: '{{ state.n }}' }, scope) // { ok: true, value: { n: 3 } }
 */
export function resolveValue(value: unknown, scope: RefScope): ResolveResult {
  const resolveString = (s: string): unknown => {
    if (s.indexOf('{{') < 0) return s;
    const parts: { start: number; end: number; ref: Reference }[] = [];
    scanString(s, (f) => {
      if (f.kind === 'ref') parts.push(f);
    });
    if (parts.length === 0) return s;
    const first = parts[0]!;
    if (parts.length === 1 && spansWhole(s, first.start, first.end)) {
      const got = readReference(first.ref, scope);
      if (!got.found) throw new Missing(first.ref);
      return got.value;
    }
    let out = '';
    let last = 0;
    for (const p of parts) {
      const got = readReference(p.ref, scope);
      if (!got.found) throw new Missing(p.ref);
      out += s.slice(last, p.start) + interpolate(got.value);
      last = p.end;
    }
    return out + s.slice(last);
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return resolveString(v);
    if (Array.isArray(v)) return v.map(walk);
    if (isRecord(v)) {
      const out: Record<string, unknown> = {};
      for (const k in v) if (Object.hasOwn(v, k)) out[k] = walk(v[k]);
      return out;
    }
    return v;
  };
  try {
    return { ok: true, value: walk(value) };
  } catch (e) {
    if (e instanceof Missing) return { ok: false, missing: e.ref };
    throw e;
  }
}

function interpolate(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  return JSON.stringify(v) ?? '';
}

export type LegacyOptions = {
  /**
   * Also rewrite LLMCompiler's `$1` / `${1}` into `{{ steps.1.output }}`. Off by default because
   * `$5 off` is ordinary text; the LLMCompiler importer turns it on.
   */
  dollar?: boolean;
};

const DAGGER = /†(state|input|steps)((?:\.[\w$\-\u0080-\uffff]+|\[\d+\]|\['[^']*'\]|\["[^"]*"\])*)/g;
const DOLLAR_WHOLE = /^\s*\$(?:(\d+)|\{(\d+)\})\s*$/;
const DOLLAR_EMBEDDED = /\$\{(\d+)\}|(?<![\w$])\$(\d+)(?![\w.])/g;

/** Rewrites one string's legacy references; returns the same string when there are none. */
export function normalizeLegacyString(s: string, opts: LegacyOptions = {}): string {
  let out = s;
  if (out.indexOf('†') >= 0)
    out = out.replace(DAGGER, (_m, root: string, path: string) => `{{ ${root}${path} }}`);
  if (opts.dollar === true && out.indexOf('$') >= 0) {
    const whole = DOLLAR_WHOLE.exec(out);
    if (whole) return `{{ steps.${whole[1] ?? whole[2]}.output }}`;
    out = out.replace(
      DOLLAR_EMBEDDED,
      (_m, braced?: string, bare?: string) => `{{ steps.${braced ?? bare}.output }}`,
    );
  }
  return out;
}

/**
 * Rewrites `†state.x` / `†input.x` (and, with `{ dollar: true }`, `$1` / `${1}`) into `{{ … }}` form,
 * deeply. Unchanged parts keep their identity, so a plan without legacy notation costs no copies.
 * @example normalizeLegacyReferences({ profile: '†state.user' }) // { profile: '{{ state.user }}' }
 */
export function normalizeLegacyReferences(value: unknown, opts: LegacyOptions = {}): unknown {
  if (typeof value === 'string') return normalizeLegacyString(value, opts);
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const n = normalizeLegacyReferences(v, opts);
      if (n !== v && out === null) out = value.slice(0, i);
      if (out !== null) out.push(n);
    }
    return out ?? value;
  }
  if (isRecord(value)) {
    let out: Record<string, unknown> | null = null;
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue;
      const v = value[k];
      const n = normalizeLegacyReferences(v, opts);
      if (n !== v) {
        out ??= { ...value };
        out[k] = n;
      }
    }
    return out ?? value;
  }
  return value;
}

export type OutputPath =
  { ok: true; success: PathSegment[]; failure: PathSegment[] | null } | { ok: false; message: string };

/**
 * Parses an `output_path`: `state.x`, `state.a.b`, or `state.ok || state.err` (the result goes to the
 * first path on success, the error to the second on failure). Each side may also be written
 * `†state.x` or `{{ state.x }}`. Paths must be under `state.`.
 * @example parseOutputPath('state.receipt || state.error') // { ok: true, success: ['receipt'], failure: ['error'] }
 */
export function parseOutputPath(s: string): OutputPath {
  const bar = s.indexOf('||');
  if (bar >= 0 && s.indexOf('||', bar + 2) >= 0) {
    return { ok: false, message: `Bad output_path "${s}": at most two paths, "state.<ok> || state.<error>"` };
  }
  const success = parseOutputSide(s, 0, bar < 0 ? s.length : bar);
  if (typeof success === 'string') return { ok: false, message: success };
  if (bar < 0) return { ok: true, success, failure: null };
  const failure = parseOutputSide(s, bar + 2, s.length);
  if (typeof failure === 'string') return { ok: false, message: failure };
  return { ok: true, success, failure };
}

/** One side of an output path, `s[a, b)`: the path under `state`, or why not. */
function parseOutputSide(s: string, a: number, b: number): PathSegment[] | string {
  while (a < b && isSpace(s.charCodeAt(a))) a++;
  while (b > a && isSpace(s.charCodeAt(b - 1))) b--;
  const from = a;
  const to = b;
  if (s.startsWith('†', a)) a++;
  else if (s.startsWith('{{', a) && b - a >= 4 && s.startsWith('}}', b - 2)) {
    a += 2;
    b -= 2;
    while (a < b && isSpace(s.charCodeAt(a))) a++;
    while (b > a && isSpace(s.charCodeAt(b - 1))) b--;
  }
  const parsed = parseRange(s, a, b);
  if (typeof parsed === 'string' || parsed.source !== 'state') {
    return `Bad output_path "${s}": "${s.slice(from, to)}" is not a path under state.`;
  }
  if (parsed.path.length === 0) return `Bad output_path "${s}": name a path under state (state.<name>)`;
  return parsed.path;
}

/** The canonical text of an output path: `state.a || state.b`. */
export function formatOutputPath(
  success: readonly PathSegment[],
  failure: readonly PathSegment[] | null,
): string {
  const one = (p: readonly PathSegment[]): string => {
    const f = formatPath(p);
    return f.startsWith('[') ? `state${f}` : `state.${f}`;
  };
  return failure ? `${one(success)} || ${one(failure)}` : one(success);
}

/**
 * Reads a path from a value: `{ found: false }` when any segment is absent.
 * Arrays take numeric segments (or digit strings); objects only their own keys.
 */
export function getPath(root: unknown, path: readonly PathSegment[]): { found: boolean; value?: unknown } {
  let cur: unknown = root;
  for (const seg of path) {
    if (Array.isArray(cur)) {
      const idx = typeof seg === 'number' ? seg : isDigits(seg) ? Number(seg) : -1;
      if (idx < 0 || idx >= cur.length) return { found: false };
      cur = cur[idx];
    } else if (typeof cur === 'object' && cur !== null) {
      const key = String(seg);
      if (!Object.hasOwn(cur, key)) return { found: false };
      cur = (cur as Record<string, unknown>)[key];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: cur };
}
