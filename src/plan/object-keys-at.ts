/**
 * What the object at a path of a tool's input schema takes: the keys it declares and the patterns of
 * other keys it takes (JSON Schema `patternProperties`). For a key zod refuses where the unknown-key
 * walk (parameter-keys.ts) saw no closed object — zod converts a closed object with
 * `patternProperties` to an intersection of the object and a record a pattern, closed by a check of
 * its own — so that the finding still says what was likely meant and what the object takes. Pure.
 */
import type { z } from 'zod';
import { baseDef } from './parameter-keys';
import type { PathSegment } from './reference-syntax';

/** What one object takes: its declared keys (in order) and the patterns (`^x_`) of other keys. */
export type ObjectKeys = { known: string[]; patterns: string[] };

/** Levels read down a schema at most: a schema is a team's data. */
const MAX_DEPTH = 64;

/**
 * The keys the object at `path` of `schema` takes, or null when no object is found there (a union, a
 * schema zod does not describe as one).
 * @example
 * objectKeysAt(z.object({ options: z.object({ max: z.number() }) }), ['options']);
 * // { known: ['max'], patterns: [] }
 */
export function objectKeysAt(schema: unknown, path: readonly PathSegment[]): ObjectKeys | null {
  let def = baseDef(schema);
  for (const segment of path.slice(0, MAX_DEPTH)) {
    if (def === null) return null;
    def = baseDef(childOf(def, segment, 0));
  }
  if (def === null || path.length > MAX_DEPTH) return null;
  const found: ObjectKeys = { known: [], patterns: [] };
  return collect(def, found, 0) ? found : null;
}

/** The schema `def` checks the value at `segment` with (undefined: none known). */
function childOf(def: z.core.$ZodTypeDef, segment: PathSegment, depth: number): unknown {
  if (depth > MAX_DEPTH) return undefined;
  switch (def.type) {
    case 'object': {
      const o = def as z.core.$ZodObjectDef;
      return typeof segment === 'string' && Object.hasOwn(o.shape, segment) ? o.shape[segment] : o.catchall;
    }
    case 'array':
      return (def as z.core.$ZodArrayDef).element;
    case 'tuple': {
      const { items, rest } = def as z.core.$ZodTupleDef;
      return typeof segment === 'number' && segment < items.length ? items[segment] : (rest ?? undefined);
    }
    case 'record': {
      const r = def as z.core.$ZodRecordDef;
      return keyAccepted(r.keyType, segment) ? r.valueType : undefined;
    }
    case 'intersection': {
      // The part that declares the key first: an object part's own key, then a pattern record.
      const { left, right } = def as z.core.$ZodIntersectionDef;
      for (const part of [left, right]) {
        const d = baseDef(part);
        if (d?.type === 'object' && typeof segment === 'string' && Object.hasOwn(shapeOf(d), segment))
          return shapeOf(d)[segment];
      }
      for (const part of [left, right]) {
        const d = baseDef(part);
        const child = d === null ? undefined : childOf(d, segment, depth + 1);
        if (child !== undefined) return child;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** Adds what the object `def` takes to `found`; whether `def` is one (an object, or an intersection of them and records). */
function collect(def: z.core.$ZodTypeDef, found: ObjectKeys, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  if (def.type === 'object') {
    for (const k of Object.keys(shapeOf(def))) if (!found.known.includes(k)) found.known.push(k);
    return true;
  }
  if (def.type === 'record') {
    found.patterns.push(...patternsOf((def as z.core.$ZodRecordDef).keyType));
    return true;
  }
  if (def.type === 'intersection') {
    const { left, right } = def as z.core.$ZodIntersectionDef;
    const sides = [left, right].map((part) => {
      const d = baseDef(part);
      return d !== null && collect(d, found, depth + 1);
    });
    return sides.some(Boolean);
  }
  return false;
}

const shapeOf = (def: z.core.$ZodTypeDef) => (def as z.core.$ZodObjectDef).shape;

/** Whether a record's key schema takes `key` (a key schema that cannot be asked takes it). */
function keyAccepted(keyType: unknown, key: PathSegment): boolean {
  const check = (keyType as { safeParse?: (v: unknown) => { success: boolean } } | null)?.safeParse;
  return typeof check !== 'function' || check.call(keyType, String(key)).success;
}

/** The regular expressions of a string key schema (`z.string().regex(/^x_/)`), as their source. */
function patternsOf(keyType: unknown): string[] {
  const checks = (baseDef(keyType) as { checks?: unknown[] } | null)?.checks ?? [];
  return checks.flatMap((c) => {
    const pattern = (c as { _zod?: { def?: { pattern?: unknown } } } | null)?._zod?.def?.pattern;
    return pattern instanceof RegExp ? [pattern.source] : [];
  });
}
