/**
 * What a zod schema says lives at a path: does `items[0].url` exist in a tool's output schema, and
 * is it a string, a number…? This is how references are type-checked before anything runs
 * (SPEC §2). Walks zod v4's definitions; anything it cannot see through (transforms, custom types,
 * `z.any()`) answers "any", so the check never rejects what it does not understand.
 */
import type { core } from 'zod';
import type { PathSegment } from './references';

/** JSON-level kinds as bits, so a union of kinds is an `|`. */
export const Kind = {
  string: 1,
  number: 2,
  boolean: 4,
  null: 8,
  undefined: 16,
  object: 32,
  array: 64,
  other: 128,
} as const;
export const ANY_KIND = 255;
const PRIMITIVE = Kind.string | Kind.number | Kind.boolean;

export type SchemaMode = 'input' | 'output';

/** `kinds` is {@link ANY_KIND} when the schema does not say. On a miss, `at` is the segment not found. */
export type SchemaAt = { ok: true; kinds: number } | { ok: false; at: number; keys: string[] };

const MAX_DEPTH = 32;

/** Answers cached per schema, mode and path; a trie so a lookup allocates nothing. */
type CacheNode = { result: SchemaAt | undefined; next: Map<PathSegment, CacheNode> | undefined };
type CacheRoots = { input: CacheNode; output: CacheNode };
const cache = new WeakMap<core.$ZodType, CacheRoots>();
const recent: (core.$ZodType | undefined)[] = [undefined, undefined];
const recentRoots: (CacheRoots | undefined)[] = [undefined, undefined];

/**
 * The kinds of value `path` (from its segment `from` on) can hold in `schema`, or where the path
 * leaves the schema (`at` counts from `from`).
 * @example schemaAt(z.object({ n: z.number() }), ['n'], 'output') // { ok: true, kinds: Kind.number }
 */
export function schemaAt(
  schema: core.$ZodType,
  path: readonly PathSegment[],
  mode: SchemaMode,
  from = 0,
): SchemaAt {
  // Lookups alternate between a producer's output schema and a consumer's input schema, mostly the
  // same two: remember two and skip the WeakMap for those.
  let roots = schema === recent[0] ? recentRoots[0] : schema === recent[1] ? recentRoots[1] : undefined;
  if (roots === undefined) {
    roots = cache.get(schema);
    if (roots === undefined) {
      roots = {
        input: { result: undefined, next: undefined },
        output: { result: undefined, next: undefined },
      };
      cache.set(schema, roots);
    }
    recent[1] = recent[0];
    recentRoots[1] = recentRoots[0];
    recent[0] = schema;
    recentRoots[0] = roots;
  }
  let node = roots[mode];
  for (let i = from; i < path.length; i++) {
    const seg = path[i]!;
    node.next ??= new Map();
    let child = node.next.get(seg);
    if (child === undefined) {
      child = { result: undefined, next: undefined };
      node.next.set(seg, child);
    }
    node = child;
  }
  node.result ??= walk(schema, from === 0 ? path : path.slice(from), mode);
  return node.result;
}

function walk(schema: core.$ZodType, path: readonly PathSegment[], mode: SchemaMode): SchemaAt {
  let current: core.$ZodType[] = [schema];
  for (let i = 0; i < path.length; i++) {
    const next: core.$ZodType[] = [];
    const keys = new Set<string>();
    for (const s of current) {
      if (child(s, path[i]!, mode, next, keys, 0)) return { ok: true, kinds: ANY_KIND };
    }
    if (next.length === 0) return { ok: false, at: i, keys: [...keys] };
    current = next;
  }
  let kinds = 0;
  for (const s of current) kinds |= kindsOf(s, mode, 0);
  return { ok: true, kinds };
}

function defOf(s: core.$ZodType): core.$ZodTypes['_zod']['def'] {
  return (s as core.$ZodTypes)._zod.def;
}

function isIndex(seg: PathSegment): number {
  if (typeof seg === 'number') return seg;
  return /^\d+$/.test(seg) ? Number(seg) : -1;
}

/** Pushes the schemas at `seg` below `s` into `out`; returns true when that is unknowable ("any"). */
function child(
  s: core.$ZodType,
  seg: PathSegment,
  mode: SchemaMode,
  out: core.$ZodType[],
  keys: Set<string>,
  depth: number,
): boolean {
  if (depth > MAX_DEPTH) return true;
  const def = defOf(s);
  switch (def.type) {
    case 'object': {
      const key = String(seg);
      const shape = def.shape;
      if (Object.hasOwn(shape, key)) out.push(shape[key]!);
      else if (def.catchall !== undefined && defOf(def.catchall).type !== 'never') out.push(def.catchall);
      else for (const k of Object.keys(shape)) keys.add(k);
      return false;
    }
    case 'record':
      out.push(def.valueType);
      return false;
    case 'array':
      if (isIndex(seg) >= 0) out.push(def.element);
      return false;
    case 'tuple': {
      const idx = isIndex(seg);
      if (idx >= 0 && idx < def.items.length) out.push(def.items[idx]!);
      else if (idx >= 0 && def.rest !== null) out.push(def.rest);
      return false;
    }
    case 'union':
      return def.options.some((o) => child(o, seg, mode, out, keys, depth + 1));
    case 'intersection':
      return (
        child(def.left, seg, mode, out, keys, depth + 1) || child(def.right, seg, mode, out, keys, depth + 1)
      );
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'nonoptional':
    case 'catch':
    case 'promise':
      return child(def.innerType, seg, mode, out, keys, depth + 1);
    case 'pipe':
      return child(mode === 'output' ? def.out : def.in, seg, mode, out, keys, depth + 1);
    case 'lazy':
      return child(def.getter(), seg, mode, out, keys, depth + 1);
    case 'string':
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'symbol':
    case 'null':
    case 'undefined':
    case 'void':
    case 'never':
    case 'nan':
    case 'literal':
    case 'enum':
    case 'template_literal':
    case 'date':
      return false;
    default:
      return true;
  }
}

function kindsOf(s: core.$ZodType, mode: SchemaMode, depth: number): number {
  if (depth > MAX_DEPTH) return ANY_KIND;
  const def = defOf(s);
  switch (def.type) {
    case 'string':
    case 'template_literal':
      return Kind.string;
    case 'number':
    case 'nan':
      return Kind.number;
    case 'boolean':
      return Kind.boolean;
    case 'null':
      return Kind.null;
    case 'undefined':
    case 'void':
      return Kind.undefined;
    case 'never':
      return 0;
    case 'object':
    case 'record':
      return Kind.object;
    case 'array':
    case 'tuple':
      return Kind.array;
    case 'date':
      return Kind.string | Kind.other; // a Date stored as JSON comes back as a string
    case 'bigint':
    case 'symbol':
    case 'map':
    case 'set':
    case 'file':
    case 'function':
      return Kind.other;
    case 'literal':
      return def.values.reduce<number>((k, v) => k | kindOfValue(v), 0);
    case 'enum':
      return Object.values(def.entries).reduce<number>((k, v) => k | kindOfValue(v), 0);
    case 'optional':
      return kindsOf(def.innerType, mode, depth + 1) | Kind.undefined;
    case 'nullable':
      return kindsOf(def.innerType, mode, depth + 1) | Kind.null;
    case 'default':
    case 'prefault':
      return mode === 'output'
        ? kindsOf(def.innerType, mode, depth + 1) & ~Kind.undefined
        : kindsOf(def.innerType, mode, depth + 1) | Kind.undefined;
    case 'nonoptional':
      return kindsOf(def.innerType, mode, depth + 1) & ~Kind.undefined;
    case 'readonly':
    case 'promise':
      return kindsOf(def.innerType, mode, depth + 1);
    case 'catch':
      return mode === 'output' ? kindsOf(def.innerType, mode, depth + 1) : ANY_KIND;
    case 'pipe':
      return kindsOf(mode === 'output' ? def.out : def.in, mode, depth + 1);
    case 'lazy':
      return kindsOf(def.getter(), mode, depth + 1);
    case 'union':
      return def.options.reduce<number>((k, o) => k | kindsOf(o, mode, depth + 1), 0);
    case 'intersection': {
      const both = kindsOf(def.left, mode, depth + 1) & kindsOf(def.right, mode, depth + 1);
      return both === 0 ? ANY_KIND : both;
    }
    default:
      return ANY_KIND;
  }
}

/** The kind of one value (a literal's, an enum member's, or what the run's input holds at a path). */
export function kindOfValue(v: unknown): number {
  if (v === null) return Kind.null;
  if (Array.isArray(v)) return Kind.array;
  switch (typeof v) {
    case 'string':
      return Kind.string;
    case 'number':
      return Kind.number;
    case 'boolean':
      return Kind.boolean;
    case 'undefined':
      return Kind.undefined;
    case 'object':
      return Kind.object;
    default:
      return Kind.other;
  }
}

/** True when a parameter expecting `expected` is one the type check applies to: primitives only. */
export function expectsPrimitive(expected: number): boolean {
  return (
    expected !== ANY_KIND &&
    (expected & PRIMITIVE) !== 0 &&
    (expected & ~(PRIMITIVE | Kind.null | Kind.undefined)) === 0
  );
}

/** Whether a value of `actual` kinds can fill a parameter expecting `expected` (absence aside). */
export function compatible(actual: number, expected: number): boolean {
  if (actual === ANY_KIND || expected === ANY_KIND) return true;
  const present = actual & ~Kind.undefined;
  return present === 0 || (present & expected) !== 0;
}

/** "a string", "a number or null"… for messages. */
export function describeKinds(kinds: number): string {
  if (kinds === ANY_KIND) return 'anything';
  const names: string[] = [];
  const article: Record<string, string> = {
    string: 'a string',
    number: 'a number',
    boolean: 'a boolean',
    null: 'null',
    undefined: 'undefined',
    object: 'an object',
    array: 'an array',
    other: 'a non-JSON value',
  };
  for (const [name, bit] of Object.entries(Kind)) if ((kinds & bit) !== 0) names.push(article[name] ?? name);
  return names.length === 0 ? 'nothing' : names.join(' or ');
}
