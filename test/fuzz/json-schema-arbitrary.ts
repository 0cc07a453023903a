/**
 * A fast-check arbitrary of the values a JSON Schema (the OpenAPI document's dialect: `$ref` into
 * `components.schemas`, `type` lists, `enum`, `anyOf`/`oneOf`/`allOf`, bounds, `pattern`,
 * `additionalProperties`) describes — values that fit it, so that mutating one field reaches the code
 * behind the schema check. Strings lean on a few words of edgeplan's domain (tool names, step ids) so
 * that generated plans name tools and steps that exist; recursion (a plan's step's subplan) stops at
 * a fixed depth.
 */
import fc from 'fast-check';

export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  default?: unknown;
};

export type SchemaContext = {
  /** `components.schemas` of the document, for `$ref`. */
  schemas: Record<string, JsonSchema>;
  /** Words strings are drawn from half of the time. */
  words: readonly string[];
};

/** How deep `$ref`s may nest before objects are cut to their required fields and arrays to none. */
const MAX_DEPTH = 4;

/** The referenced schema of `#/components/schemas/Name`. */
function resolve(ctx: SchemaContext, ref: string): JsonSchema {
  const name = ref.replace('#/components/schemas/', '');
  const schema = ctx.schemas[name];
  if (!schema) throw new Error(`No schema ${ref}`);
  return schema;
}

/** Any JSON value, small. */
export const anyJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 2 });

/** An arbitrary of values `schema` accepts. */
export function schemaArbitrary(ctx: SchemaContext, schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if (schema.$ref) return schemaArbitrary(ctx, resolve(ctx, schema.$ref), depth + 1);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.allOf) {
    // The document's allOf is a $ref plus a description: the first member with content stands.
    const main = schema.allOf.find((s) => s.$ref || s.type || s.properties) ?? {};
    return schemaArbitrary(ctx, main, depth);
  }
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const usable = depth >= MAX_DEPTH ? alternatives.filter((s) => !s.$ref) : alternatives;
    return fc.oneof(
      ...(usable.length ? usable : alternatives.slice(0, 1)).map((s) => schemaArbitrary(ctx, s, depth)),
    );
  }
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length > 1)
    return fc.oneof(...types.map((type) => schemaArbitrary(ctx, { ...schema, type }, depth)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number':
      return numberArbitrary(schema, types[0] === 'integer');
    case 'string':
      return stringArbitrary(ctx, schema);
    case 'array':
      return depth >= MAX_DEPTH
        ? fc.constant([])
        : fc.array(schemaArbitrary(ctx, schema.items ?? {}, depth + 1), {
            minLength: schema.minItems ?? 0,
            maxLength: Math.min(schema.maxItems ?? 3, 3),
          });
    case 'object':
      return objectArbitrary(ctx, schema, depth);
    default:
      // `{}`: any JSON value.
      return schema.properties ? objectArbitrary(ctx, schema, depth) : anyJson;
  }
}

function numberArbitrary(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const lo =
    schema.minimum ??
    (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + (integer ? 1 : 1e-6) : -1e6);
  const hi =
    schema.maximum ??
    (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - (integer ? 1 : 1e-6) : 1e6);
  if (integer) return fc.integer({ min: Math.ceil(lo), max: Math.floor(Math.min(hi, 2 ** 31)) });
  return fc.double({ min: lo, max: Math.min(hi, 1e9), noNaN: true, noDefaultInfinity: true });
}

function stringArbitrary(ctx: SchemaContext, schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.format === 'uri') return fc.constantFrom('https://example.com/hook', 'http://127.0.0.1:9/x');
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 40, 40);
  const fits = (s: string) =>
    s.length >= minLength && s.length <= (schema.maxLength ?? Infinity) && patternHolds(schema.pattern, s);
  const words = ctx.words.filter(fits);
  const free = fc.string({ minLength, maxLength: Math.max(minLength, maxLength) }).filter(fits);
  return words.length ? fc.oneof(fc.constantFrom(...words), free) : free;
}

function patternHolds(pattern: string | undefined, s: string): boolean {
  if (pattern === undefined) return true;
  try {
    return new RegExp(pattern, 'u').test(s);
  } catch {
    return true;
  }
}

function objectArbitrary(ctx: SchemaContext, schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const required = schema.required ?? [];
  const keys = Object.keys(properties).filter((k) => depth < MAX_DEPTH || required.includes(k));
  const record = fc.record(
    Object.fromEntries(keys.map((k) => [k, schemaArbitrary(ctx, properties[k]!, depth)])),
    { requiredKeys: required.filter((k) => keys.includes(k)) },
  );
  const extra = schema.additionalProperties;
  if (!extra || Object.keys(properties).length > 0) return record;
  // A map (`additionalProperties: {}`): a few entries of any JSON.
  return fc.dictionary(
    fc.constantFrom(...ctx.words.slice(0, 6)),
    extra === true ? anyJson : schemaArbitrary(ctx, extra, depth + 1),
    { maxKeys: 3 },
  );
}
