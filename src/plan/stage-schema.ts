/**
 * A `staged` run's stage input and output schemas (seed 002 multi-stage policies): JSON Schema,
 * checked with zod 4's own `fromJSONSchema` (no second validator, no `new Function`). Pure.
 */
import { z } from 'zod';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The schema with every `required` name declared under `properties` (as `{}` when it was not): zod's
 * converter enforces `required` only for declared properties, JSON Schema for any. Nested schemas too.
 */
function withRequiredDeclared(schema: unknown, depth = 0): unknown {
  if (!isObject(schema) || depth > 32) return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    out[k] = Array.isArray(v)
      ? v.map((x) => withRequiredDeclared(x, depth + 1))
      : withRequiredDeclared(v, depth + 1);
  }
  if (Array.isArray(out.required)) {
    const properties: Json = isObject(out.properties) ? { ...out.properties } : {};
    for (const name of out.required)
      if (typeof name === 'string' && !(name in properties)) properties[name] = {};
    out.properties = properties;
  }
  return out;
}

const toZod = (schema: unknown) =>
  z.fromJSONSchema(withRequiredDeclared(schema) as Parameters<typeof z.fromJSONSchema>[0]);

/** Whether zod can read `schema`; the message says why not (for config validation). */
export function readableSchema(schema: unknown): { ok: true } | { ok: false; message: string } {
  try {
    toZod(schema);
    return { ok: true };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Every place `value` fails `schema`, as `path: message` (`(root)` for the value itself); empty when
 * it fits.
 * @example checkStageSchema({ type: 'object', required: ['answer'] }, {}) // ['answer: Invalid input…']
 */
export function checkStageSchema(schema: unknown, value: unknown): string[] {
  const r = toZod(schema).safeParse(value);
  if (r.success) return [];
  return r.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
}
