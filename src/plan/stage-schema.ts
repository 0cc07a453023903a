/**
 * A `staged` run's stage input and output schemas (seed 002 multi-stage policies): JSON Schema,
 * checked with zod 4's own `fromJSONSchema` (no second validator, no `new Function`). Pure.
 */
import { z } from 'zod';
import { issueText } from '../issue-text';

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

/**
 * Values a schema is tried on before it is accepted: a `$ref` that leads back to itself without going
 * into a property or an item (`{"$ref": "#"}`, `{"allOf": [{"$ref": "#"}]}`) converts, then recurses
 * without end on every value — the run object's decision on an answer or a stage's output threw.
 */
const PROBES: unknown[] = [{}, [], null, '', 0, true];

/** What to change, for a schema that refers to itself without end. */
const SELF_REFERENCE =
  'its $ref leads back to itself without going into a property or an item, so checking any value would ' +
  'never end: put the $ref under "properties" or "items", or write the schema out';

/** Whether zod can read `schema`; the message says why not (for config validation). */
export function readableSchema(schema: unknown): { ok: true } | { ok: false; message: string } {
  try {
    const zod = toZod(schema);
    for (const v of PROBES) zod.safeParse(v);
    return { ok: true };
  } catch (err) {
    if (err instanceof RangeError) return { ok: false, message: SELF_REFERENCE };
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Every place `value` fails `schema`, as `path: message` (`(root)` for the value itself); empty when
 * it fits.
 * @example checkStageSchema({ type: 'object', required: ['answer'] }, {}) // ['answer: Invalid input…']
 */
export function checkStageSchema(schema: unknown, value: unknown): string[] {
  let r: ReturnType<ReturnType<typeof toZod>['safeParse']>;
  try {
    r = toZod(schema).safeParse(value);
  } catch (err) {
    // A schema stored before readableSchema tried it (or one that recurses only on some values).
    if (err instanceof RangeError) return [`(root): the schema cannot be checked: ${SELF_REFERENCE}`];
    throw err;
  }
  if (r.success) return [];
  return r.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${issueText(i)}`);
}
