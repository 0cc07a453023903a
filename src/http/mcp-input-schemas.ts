/**
 * The argument schemas `/mcp` lists for its tools, taken from the OpenAPI document: a tool's
 * arguments are its route's request body as the API documents it — every description, default and
 * enum, and the plan as the `Plan` schema — with `run_id` added for a run's routes.
 *
 * (zod's own `toJSONSchema` reads none of the `.openapi()` metadata: listed that way, no argument had
 * a description and `plan` was `{}`, so a model was told nothing of what a plan is.)
 */

type JsonSchema = Record<string, unknown>;

/** As much of an OpenAPI 3.1 document as this reads. */
export type OpenApiDoc = {
  paths?: Record<string, object | undefined>;
  components?: { schemas?: Record<string, unknown> };
};

/** An OpenAPI operation: `path` as the document writes it (`/v1/runs/{id}/cancel`). */
export type OpenApiRoute = { method: 'get' | 'post'; path: string };

const COMPONENTS = '#/components/schemas/';
const DEFS = '#/$defs/';

const RUN_ID: JsonSchema = {
  type: 'string',
  minLength: 1,
  description: 'The run id (run_…), as start_run returned it',
};

/** What a tool's arguments are made of (McpApiTool's fields of the same names). */
export type ToolArguments = {
  body: OpenApiRoute | null;
  query?: OpenApiRoute;
  runId: boolean;
  extra?: Record<string, JsonSchema>;
  closed?: { required?: string[] };
};

/**
 * The JSON Schema of a tool's arguments: the body of `body` (none: no properties) or the query
 * parameters of `query`, plus a required `run_id` when `runId`, and the `extra` arguments; `closed`:
 * no others (`additionalProperties: false`), and its `required` ones. Components it refers to travel
 * along as `$defs`.
 * @example toolInputSchema(doc, { body: { method: 'post', path: '/v1/runs/{id}/cancel' }, runId: true }).required; // ['run_id']
 */
export function toolInputSchema(doc: OpenApiDoc, tool: ToolArguments): JsonSchema {
  const components = doc.components?.schemas ?? {};
  const body = tool.body
    ? inline(requestBodySchema(doc, tool.body), components)
    : tool.query
      ? queryParameters(doc, tool.query)
      : { properties: {} };
  const properties = {
    ...(tool.runId ? { run_id: RUN_ID } : {}),
    ...asObject(body.properties),
    ...mergedExtra(asObject(body.properties), tool.extra ?? {}),
  };
  const required = [
    ...(tool.runId ? ['run_id'] : []),
    ...asStrings(body.required),
    ...(tool.closed?.required ?? []),
  ];
  const schema: JsonSchema = {
    ...body,
    type: 'object',
    properties,
    ...(required.length > 0 ? { required: [...new Set(required)] } : {}),
    ...(tool.closed ? { additionalProperties: false } : {}),
  };
  const defs: Record<string, unknown> = {};
  for (const name of referencedComponents(schema, components)) defs[name] = components[name];
  return toDefs(Object.keys(defs).length > 0 ? { ...schema, $defs: defs } : schema) as JsonSchema;
}

/** `extra`, each argument the body documents already taking what `extra` adds to it (a description). */
function mergedExtra(documented: JsonSchema, extra: Record<string, JsonSchema>): JsonSchema {
  const out: JsonSchema = {};
  for (const [name, schema] of Object.entries(extra))
    out[name] = { ...asObject(documented[name]), ...schema };
  return out;
}

/** A flag in a query string (`?top_level=true`): listed as the boolean a model passes. */
const QUERY_FLAG = ['0', '1', 'true', 'false', ''];

/**
 * A GET's query parameters as an object's properties, each with its schema and description. A flag,
 * which the route reads from the words `true`/`false`/`1`/`0`, is listed as a boolean: the call
 * writes one back as `true`/`false`.
 */
function queryParameters(doc: OpenApiDoc, route: OpenApiRoute): JsonSchema {
  const op = asObject(asObject(doc.paths?.[route.path])[route.method]);
  const params = Array.isArray(op.parameters) ? op.parameters.map(asObject) : [];
  const properties: JsonSchema = {};
  const required: string[] = [];
  for (const p of params) {
    if (p.in !== 'query' || typeof p.name !== 'string') continue;
    const schema = asObject(p.schema);
    const description = typeof p.description === 'string' ? p.description : schema.description;
    const isFlag =
      Array.isArray(schema.enum) && QUERY_FLAG.every((v) => (schema.enum as unknown[]).includes(v));
    properties[p.name] = {
      ...(isFlag ? { type: 'boolean' } : schema),
      ...(typeof description === 'string' ? { description } : {}),
    };
    if (p.required === true) required.push(p.name);
  }
  if (Object.keys(properties).length === 0 && params.length === 0)
    throw new Error(`The OpenAPI document has no parameters for ${route.method.toUpperCase()} ${route.path}`);
  return { properties, ...(required.length > 0 ? { required } : {}) };
}

function requestBodySchema(doc: OpenApiDoc, route: OpenApiRoute): unknown {
  const op = asObject(asObject(doc.paths?.[route.path])[route.method]);
  const schema = asObject(asObject(asObject(asObject(op.requestBody).content)['application/json']).schema);
  if (Object.keys(schema).length === 0)
    throw new Error(`The OpenAPI document has no JSON body for ${route.method.toUpperCase()} ${route.path}`);
  return schema;
}

/** A body that is a `$ref` to a component, as that component (MCP wants the object's properties). */
function inline(schema: unknown, components: Record<string, unknown>): JsonSchema {
  const ref = asObject(schema).$ref;
  if (typeof ref === 'string' && ref.startsWith(COMPONENTS)) {
    return asObject(components[ref.slice(COMPONENTS.length)]);
  }
  return asObject(schema);
}

/** Every component `schema` refers to, directly or through other components. */
function referencedComponents(schema: unknown, components: Record<string, unknown>): Set<string> {
  const found = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
    } else if (typeof node === 'object' && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENTS)) {
          const name = value.slice(COMPONENTS.length);
          if (!found.has(name) && name in components) {
            found.add(name);
            walk(components[name]);
          }
        } else walk(value);
      }
    }
  };
  walk(schema);
  return found;
}

/** A copy with `#/components/schemas/X` references pointing at `#/$defs/X`. */
function toDefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toDefs);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENTS)
        ? DEFS + value.slice(COMPONENTS.length)
        : toDefs(value);
  }
  return out;
}

function asObject(v: unknown): JsonSchema {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonSchema) : {};
}

function asStrings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
