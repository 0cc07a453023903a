/**
 * The parameter keys a tool's input schema declares, when that schema is closed, and the keys a step
 * gives that it does not. A `z.object` strips a key it does not declare, so a misspelt `maxx` beside
 * `max` — at the top or in a nested `options` object — would validate and run without the limit;
 * validation names such a key instead (an `invalid_parameters` finding).
 */
import type { z } from 'zod';
import type { PathSegment } from './reference-syntax';

/** The declared keys of each object definition seen, or null for an open one (definitions are immutable). */
const cache = new WeakMap<z.core.$ZodTypeDef, readonly string[] | null>();

/**
 * The keys `schema` takes when it is a closed object — a `z.object` (which strips other keys) or a
 * `z.strictObject` (which refuses them), as an MCP tool's JSON Schema with `additionalProperties:
 * false` becomes — else null: an open object (`z.looseObject`, `.passthrough()`, `.catchall(…)`, a JSON
 * Schema without `additionalProperties: false`), a record, or anything else. Wrappers that keep the
 * object's keys (optional, nullable, default, readonly, lazy, the input side of a transform) are seen
 * through.
 * @example closedKeys(z.object({ text: z.string(), max: z.number().optional() })); // Set { 'text', 'max' }
 * @example closedKeys(z.looseObject({ text: z.string() })); // null
 */
export function closedKeys(schema: z.ZodType): ReadonlySet<string> | null {
  const def = baseDef(schema);
  const keys = def?.type === 'object' ? declaredKeys(def as z.core.$ZodObjectDef) : null;
  return keys === null ? null : new Set(keys);
}

/** A key a closed object in a tool's input does not declare: where it is, and what that object takes. */
export type UnknownKey = {
  /** From the parameters down: `['options', 'maxx']`, `['items', 2, 'nmae']`. */
  path: PathSegment[];
  /** The keys the object it was found in declares, in declared order. */
  known: readonly string[];
  /** Patterns of other keys that object takes (JSON Schema `patternProperties`), when it has any. */
  patterns?: readonly string[];
};

/** Objects and arrays one walk looks into at most, and how deep: a schema and a value are a team's data. */
const MAX_WALK_NODES = 10_000;
const MAX_WALK_DEPTH = 32;

/**
 * Every key of `value` that a closed object of `schema` does not declare, at any depth the schema
 * describes: the top level, nested objects, the items of arrays and tuples, the values of records. An
 * object's own keys come first, then those inside its values, each in the order the value gives them. `complete` is false when the walk stopped at its bounds
 * ({@link MAX_WALK_NODES} objects and arrays, {@link MAX_WALK_DEPTH} levels), with what it found so far.
 * A value that is not an object or array (a reference's text, say) has no keys to check.
 * @example
 * unknownKeys(z.object({ options: z.object({ max: z.number() }) }), { options: { maxx: 3 } });
 * // { found: [{ path: ['options', 'maxx'], known: ['max'] }], complete: true }
 */
export function unknownKeys(schema: z.ZodType, value: unknown): { found: UnknownKey[]; complete: boolean } {
  const found: UnknownKey[] = [];
  const todo: { schema: unknown; value: unknown; path: PathSegment[] }[] = [{ schema, value, path: [] }];
  let visited = 0;
  while (todo.length > 0) {
    const next = todo.pop()!;
    const v = next.value;
    if (typeof v !== 'object' || v === null) continue;
    const def = baseDef(next.schema);
    if (def === null) continue;
    if (++visited > MAX_WALK_NODES || next.path.length > MAX_WALK_DEPTH) return { found, complete: false };
    const children: { schema: unknown; value: unknown; path: PathSegment[] }[] = [];
    const child = (s: unknown, key: PathSegment, cv: unknown) => {
      if (s !== undefined && typeof cv === 'object' && cv !== null)
        children.push({ schema: s, value: cv, path: [...next.path, key] });
    };
    if (Array.isArray(v)) {
      if (def.type === 'array') {
        const element = (def as z.core.$ZodArrayDef).element;
        for (let i = 0; i < v.length; i++) child(element, i, v[i]);
      } else if (def.type === 'tuple') {
        const { items, rest } = def as z.core.$ZodTupleDef;
        for (let i = 0; i < v.length; i++) child(i < items.length ? items[i] : (rest ?? undefined), i, v[i]);
      }
    } else if (def.type === 'object') {
      const o = def as z.core.$ZodObjectDef;
      const known = declaredKeys(o);
      const open = known === null ? o.catchall : undefined;
      for (const key of Object.keys(v)) {
        const cv = (v as Record<string, unknown>)[key];
        if (Object.hasOwn(o.shape, key)) child(o.shape[key], key, cv);
        else if (known !== null) found.push({ path: [...next.path, key], known });
        else child(open, key, cv);
      }
    } else if (def.type === 'record') {
      const valueType = (def as z.core.$ZodRecordDef).valueType;
      for (const key of Object.keys(v)) child(valueType, key, (v as Record<string, unknown>)[key]);
    }
    // Depth first in value order: the first child is taken next.
    for (let k = children.length - 1; k >= 0; k--) todo.push(children[k]!);
  }
  return { found, complete: true };
}

/** An object's declared keys when it is closed (no catchall, or `never`), else null. */
function declaredKeys(def: z.core.$ZodObjectDef): readonly string[] | null {
  const known = cache.get(def);
  if (known !== undefined) return known;
  const keys =
    def.catchall === undefined || def.catchall._zod.def.type === 'never' ? Object.keys(def.shape) : null;
  cache.set(def, keys);
  return keys;
}

/**
 * The definition of the schema `schema` checks its value's keys with (exported for
 * object-keys-at.ts), through key-keeping wrappers;
 * null for anything that is not a zod 4 schema (a team's Worker may pass another validator's object:
 * its keys are its own business). Read by `def.type`, not `instanceof`: a team's Worker may bundle its
 * own copy of zod.
 */
export function baseDef(schema: unknown): z.core.$ZodTypeDef | null {
  let def = defOf(schema);
  // Bounded: wrappers nest a few deep, and a schema is a team's data.
  for (let depth = 0; depth < 16 && def !== null; depth++) {
    switch (def.type) {
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'readonly':
      case 'nonoptional':
      case 'catch':
        def = defOf((def as z.core.$ZodOptionalDef).innerType);
        break;
      case 'pipe': {
        // The input side is what checks the value as the step gives it, but for a key guard: zod's
        // JSON Schema conversion checks `minProperties`, `maxProperties` and `propertyNames` in an
        // identity transform piped into the object, which then sees the same keys.
        const pipe = def as z.core.$ZodPipeDef;
        def = defOf(isKeyGuard(pipe.in) ? pipe.out : pipe.in);
        break;
      }
      case 'lazy':
        def = defOf((def as z.core.$ZodLazyDef).getter());
        break;
      default:
        return def;
    }
  }
  return null;
}

function defOf(schema: unknown): z.core.$ZodTypeDef | null {
  const zod = (schema as { _zod?: { def?: z.core.$ZodTypeDef } } | null | undefined)?._zod;
  return typeof zod?.def?.type === 'string' ? zod.def : null;
}

/**
 * An identity transform carrying checks: how zod's `fromJSONSchema` guards an object's keys
 * (`(value) => value`, then `.check(…)`). Told by its function's text, `v => v` as written or
 * minified: a transform that changes the value (`z.preprocess`) may rename keys, so the object after
 * it is not a picture of the keys given. Not recognised (another zod's output, say), the object's
 * unknown keys are still named from zod's own issue (parameter-problems.ts).
 */
function isKeyGuard(schema: unknown): boolean {
  const def = defOf(schema) as (z.core.$ZodTransformDef & { checks?: unknown[] }) | null;
  if (def?.type !== 'transform' || !def.checks?.length || typeof def.transform !== 'function') return false;
  return IDENTITY.test(Function.prototype.toString.call(def.transform));
}

/** `(value) => value`, `v=>v`, `function (v) { return v; }`. */
const IDENTITY =
  /^\s*(?:\(\s*([\w$]+)\s*\)|([\w$]+))\s*=>\s*(?:\1|\2)\s*$|^\s*function\s*[\w$]*\s*\(\s*([\w$]+)\s*\)\s*\{\s*return\s+\3\s*;?\s*\}\s*$/;
