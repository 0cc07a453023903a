/**
 * References inside step parameters (SPEC §2): `{{ steps.<id>.output… }}`, `{{ state.… }}`,
 * `{{ input.… }}` — finding them in a value, the implicit dependencies they create, and resolving
 * them to concrete values. The grammar is in `reference-syntax.ts`, import notations in
 * `legacy-references.ts`, output paths in `output-path.ts`; all are re-exported here.
 */
import { isRecord } from './model';
import { setOwn } from './own-keys';
import { clearArray, isDigits, parseBraced, spansWhole } from './reference-syntax';
import type { PathSegment, Reference } from './reference-syntax';

export {
  clearArray,
  formatPath,
  isNameChar,
  parseReferenceExpression,
  type ParsedPath,
  type PathSegment,
  type RefSource,
  type Reference,
} from './reference-syntax';
export { normalizeLegacyReferences, normalizeLegacyString, type LegacyOptions } from './legacy-references';
export { formatOutputPath, parseOutputPath, type OutputPath } from './output-path';

/** A reference that does not parse, with where it sits in the parameters. */
export type ReferenceError = { message: string; path: PathSegment[] };

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
    open = nested; // the next `{{`, already found (it cannot start before close + 2)
  }
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
 * frozen arrays rather than one copy per reference. The table lives as long as the isolate and its
 * keys are callers' parameter names, so it is bounded twice: dropped when it holds more than
 * {@link MAX_INTERNED_NODES} nodes or {@link MAX_INTERNED_CHARACTERS} characters of keys (a plan's
 * key may be megabytes long, and every such key was kept until 10,000 had been seen); a location
 * whose keys are longer than {@link MAX_INTERNED_LOCATION} characters is not interned at all.
 */
type LocationNode = { location: readonly PathSegment[] | null; next: Map<PathSegment, LocationNode> | null };
const MAX_INTERNED_NODES = 10_000;
const MAX_INTERNED_CHARACTERS = 256 * 1024;
const MAX_INTERNED_LOCATION = 4 * 1024;
let locations: LocationNode = { location: null, next: null };
let locationCount = 0;
let locationCharacters = 0;

/**
 * How many location nodes this isolate keeps, and their keys' characters (diagnostics, tests).
 * @example internedLocations() // { nodes: 42, characters: 310 }
 */
export function internedLocations(): { nodes: number; characters: number } {
  return { nodes: locationCount, characters: locationCharacters };
}

const keyLength = (seg: PathSegment): number => (typeof seg === 'string' ? seg.length : 0);

function internLocation(at: readonly PathSegment[]): PathSegment[] {
  let length = 0;
  for (let i = 0; i < at.length; i++) length += keyLength(at[i]!);
  if (length > MAX_INTERNED_LOCATION || at.length > MAX_INTERNED_LOCATION)
    return Object.freeze(at.slice()) as PathSegment[];
  let node = locations;
  for (let i = 0; i < at.length; i++) {
    const seg = at[i]!;
    node.next ??= new Map();
    let child = node.next.get(seg);
    if (child === undefined) {
      locationCharacters += keyLength(seg);
      if (++locationCount > MAX_INTERNED_NODES || locationCharacters > MAX_INTERNED_CHARACTERS) {
        locations = { location: null, next: null };
        locationCount = 0;
        locationCharacters = 0;
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
    open = nested; // the next `{{`, already found (it cannot start before close + 2)
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
      // setOwn: a parameter key `__proto__` is a key the tool gets, not the copy's prototype.
      for (const k in v) if (Object.hasOwn(v, k)) setOwn(out, k, walk(v[k]));
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
