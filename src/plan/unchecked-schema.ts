/**
 * A tool input schema edgeplan could not read (an MCP tool's JSON Schema that zod cannot convert: a
 * `$ref` it does not resolve, `if`/`then`/`else`, `dependentRequired`, …) takes any object, so the
 * server checks its own parameters — and validation says so (`unchecked` in its result) instead of
 * passing the step's parameters in silence. The schema carries why in its metadata, which
 * `GET /v1/tools` shows too (`x-edgeplan-unchecked`).
 */
import { z } from 'zod';

/** The metadata key of why a schema is not checked. */
export const UNCHECKED_SCHEMA_KEY = 'x-edgeplan-unchecked';

/** A step whose parameters validation could not check, and why. */
export type UncheckedParameters = {
  step_id: string;
  tool: string;
  path: (string | number)[];
  message: string;
};

/**
 * An object with any keys standing for a schema that could not be read, saying why.
 * @example uncheckedSchema('"$ref": "#/x" not found').safeParse({ a: 1 }).success; // true
 */
export function uncheckedSchema(why: string): z.ZodType {
  return z.record(z.string(), z.unknown()).meta({ [UNCHECKED_SCHEMA_KEY]: why });
}

/**
 * Why `schema` checks nothing (it stands for one that could not be read), or null.
 * @example uncheckedReason(uncheckedSchema('no')); // 'no'
 */
export function uncheckedReason(schema: unknown): string | null {
  // Only a zod schema is in the registry (a team's Worker may give another validator's object).
  if (typeof (schema as { _zod?: unknown } | null)?._zod !== 'object') return null;
  const meta = z.globalRegistry.get(schema as z.ZodType);
  const why = meta?.[UNCHECKED_SCHEMA_KEY];
  return typeof why === 'string' ? why : null;
}
