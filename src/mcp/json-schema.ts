/**
 * JSON Schema → zod, for an MCP tool's `inputSchema` / `outputSchema`: the registry validates a step's
 * parameters (and a result) with zod, and the planner and `GET /v1/tools` describe tools from it. zod 4's
 * own `fromJSONSchema` does the work, so no second validator ships in the bundle; the SDK's `ajv`
 * default compiles with `new Function`, which the Workers runtime refuses.
 */
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { z } from 'zod';
import { uncheckedSchema } from '../plan/unchecked-schema';

/**
 * The zod schema for `schema`, or an object with any keys when zod cannot convert it (a `$ref` it does
 * not resolve, say; `onUnreadable` is told why) — the server still validates its own input, and
 * validation says the step's parameters were not checked (src/plan/unchecked-schema.ts).
 * @example zodFromJsonSchema({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] });
 */
export function zodFromJsonSchema(schema: unknown, onUnreadable?: (why: string) => void): z.ZodType {
  if (typeof schema !== 'object' || schema === null) return uncheckedSchema('it is not a JSON Schema object');
  try {
    const loop = refLoop(schema);
    // zod converts it, but checking any value against it recurses until the stack overflows.
    if (loop)
      throw new Error(`"$ref": ${JSON.stringify(loop)} refers back to itself without reading a value`);
    return z.fromJSONSchema(withoutUnevaluated(schema) as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    onUnreadable?.(why);
    return uncheckedSchema(why);
  }
}

type Node = Record<string, unknown>;

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An object schema with the keyword (not a `properties` map with a property of that name). */
const hasUnevaluated = (n: Node) =>
  Object.hasOwn(n, 'unevaluatedProperties') && (n.type === 'object' || isNode(n.properties));

/** Keywords that let `unevaluatedProperties` see properties other than the node's own. */
const EVALUATING = [
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  '$ref',
  '$dynamicRef',
  'dependentSchemas',
];

/**
 * `schema` with `unevaluatedProperties` (draft 2020-12), which zod does not convert, said the way it
 * does: on a node that nothing else evaluates properties for, `false` is `additionalProperties: false`
 * and `true` says nothing. Left as it is anywhere else (the conversion fails and the tool takes any
 * object, as before). Without this a closed schema written that way ended up open: no unknown key
 * was named, and nothing of the schema checked. The server's object is not changed.
 * @example withoutUnevaluated({ type: 'object', properties: { a: {} }, unevaluatedProperties: false });
 * // { type: 'object', properties: { a: {} }, additionalProperties: false }
 */
function withoutUnevaluated(schema: object): object {
  if (!nodesOf(schema).some(hasUnevaluated)) return schema;
  const copy = structuredClone(schema);
  for (const node of nodesOf(copy)) {
    if (!hasUnevaluated(node)) continue;
    const u = node.unevaluatedProperties;
    if (u === true) delete node.unevaluatedProperties;
    else if (u === false && node.additionalProperties === undefined && !EVALUATING.some((k) => k in node)) {
      delete node.unevaluatedProperties;
      node.additionalProperties = false;
    }
  }
  return copy;
}

/**
 * A `$ref` that leads back to itself through nothing but references and combinators (`allOf`,
 * `anyOf`, `oneOf`, `not`, `if`/`then`/`else`), which check the same value again: a check never ends.
 * A reference back through `properties` or `items` is fine (a tree): each turn reads a level deeper.
 * @example refLoop({ $ref: '#/$defs/A', $defs: { A: { $ref: '#/$defs/A' } } }); // '#/$defs/A'
 */
export function refLoop(root: object): string | null {
  const state = new Map<Node, 'open' | 'done'>();
  for (const start of nodesOf(root)) {
    if (state.has(start)) continue;
    state.set(start, 'open');
    const stack = [{ node: start, next: sameLevel(root, start), i: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const n = top.next[top.i++];
      if (n === undefined) {
        state.set(top.node, 'done');
        stack.pop();
      } else if (state.get(n) === 'open') {
        const ref = stack.map((f) => f.node.$ref).find((r) => typeof r === 'string');
        return typeof ref === 'string' ? ref : '#';
      } else if (!state.has(n)) {
        state.set(n, 'open');
        stack.push({ node: n, next: sameLevel(root, n), i: 0 });
      }
    }
  }
  return null;
}

/** Every schema object under `root` (walked without recursion: a schema may nest thousands deep). */
function nodesOf(root: object): Node[] {
  const out: Node[] = [];
  const todo: unknown[] = [root];
  while (todo.length > 0) {
    const v = todo.pop();
    if (!Array.isArray(v) && !isNode(v)) continue;
    if (isNode(v)) out.push(v);
    for (const child of Object.values(v)) todo.push(child);
  }
  return out;
}

/** The schemas `node` checks the same value against: its local `$ref` and its combinators' parts. */
function sameLevel(root: object, node: Node): Node[] {
  const out: Node[] = [];
  if (typeof node.$ref === 'string') {
    const target = resolvePointer(root, node.$ref);
    if (target) out.push(target);
  }
  for (const key of ['allOf', 'anyOf', 'oneOf'])
    if (Array.isArray(node[key])) out.push(...(node[key] as unknown[]).filter(isNode));
  for (const key of ['not', 'if', 'then', 'else']) if (isNode(node[key])) out.push(node[key]);
  return out;
}

/** The schema a local `$ref` (`#`, `#/$defs/A`) points at; undefined for any other. */
function resolvePointer(root: object, ref: string): Node | undefined {
  if (ref !== '#' && !ref.startsWith('#/')) return undefined;
  let at: unknown = root;
  for (const raw of ref === '#' ? [] : ref.slice(2).split('/')) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    at = isNode(at) || Array.isArray(at) ? (at as Record<string, unknown>)[key] : undefined;
  }
  return isNode(at) ? at : undefined;
}

/**
 * The SDK's `jsonSchemaValidator` port backed by zod (Client and Server options), so neither ever
 * compiles a schema with ajv.
 * @example new Client(info, { jsonSchemaValidator: zodJsonSchemaValidator });
 */
export const zodJsonSchemaValidator: jsonSchemaValidator = {
  getValidator<T>(schema: unknown) {
    const zod = zodFromJsonSchema(schema);
    return (input: unknown) => {
      const r = zod.safeParse(input);
      return r.success
        ? { valid: true as const, data: r.data as T, errorMessage: undefined }
        : { valid: false as const, data: undefined, errorMessage: z.prettifyError(r.error) };
    };
  },
};
