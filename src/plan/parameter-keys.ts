/**
 * The parameter keys a tool's input schema declares, when that schema is closed. A `z.object` strips
 * a key it does not declare, so a misspelt `maxx` beside `max` would validate and run without the
 * limit; validation names such a key instead (an `invalid_parameters` finding).
 */
import type { z } from 'zod';

/** The declared keys of each schema seen, or null for an open one (cached: schemas are immutable). */
const cache = new WeakMap<z.ZodType, ReadonlySet<string> | null>();

/**
 * The keys `schema` takes when it is a closed object — a `z.object` (which strips other keys) or a
 * `z.strictObject` (which refuses them), as an MCP tool's JSON Schema with `additionalProperties:
 * false` becomes — else null: an open object (`z.looseObject`, `.passthrough()`, `.catchall(…)`, a JSON
 * Schema without `additionalProperties: false`), a record, or anything else. Wrappers that keep the
 * object's keys (optional, nullable, default, readonly, the input side of a transform) are seen through.
 * @example closedKeys(z.object({ text: z.string(), max: z.number().optional() })); // Set { 'text', 'max' }
 * @example closedKeys(z.looseObject({ text: z.string() })); // null
 */
export function closedKeys(schema: z.ZodType): ReadonlySet<string> | null {
  const known = cache.get(schema);
  if (known !== undefined) return known;
  const def = objectDefOf(schema);
  const keys =
    def !== null && (def.catchall === undefined || def.catchall._zod.def.type === 'never')
      ? new Set(Object.keys(def.shape))
      : null;
  cache.set(schema, keys);
  return keys;
}

/**
 * The definition of the object schema `schema` checks its value's keys with, through key-keeping
 * wrappers. Read by `def.type`, not `instanceof`: a team's Worker may bundle its own copy of zod.
 */
function objectDefOf(schema: z.ZodType): z.core.$ZodObjectDef | null {
  let def: z.core.$ZodTypeDef = schema._zod.def;
  // Bounded: wrappers nest a few deep, and a schema is a team's data.
  for (let depth = 0; depth < 16; depth++) {
    switch (def.type) {
      case 'object':
        return def as z.core.$ZodObjectDef;
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'readonly':
        def = (def as z.core.$ZodOptionalDef).innerType._zod.def;
        break;
      case 'pipe':
        def = (def as z.core.$ZodPipeDef).in._zod.def;
        break;
      default:
        return null;
    }
  }
  return null;
}
