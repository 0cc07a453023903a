/**
 * What is wrong with a message posted to `/mcp`, answered before the SDK's transport reads it: a JSON
 * value that is not a JSON-RPC 2.0 message, or not one the SDK's schema takes (a fractional id, a key
 * beside the message's own), is `-32600 Invalid Request` saying what is wrong (the transport calls it
 * `-32700 Parse error`, which is for text that is not JSON, and names nothing); and a request whose
 * params its method's schema refuses — a `tools/call` whose params are not `{name, arguments?}`, an
 * `initialize` without `protocolVersion` — is `-32602 Invalid params` in one line (the SDK answers
 * `-32603 Internal error` with its schema's issues as the message), as are tool arguments with the
 * key `__proto__` (which the SDK would drop unseen) — in a batch as alone.
 */
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  JSONRPCErrorResponseSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { issueText } from '../issue-text';
import { clipText } from '../text-cut';

/** A JSON-RPC error answer to one request. */
export type JsonRpcRefusal = {
  jsonrpc: '2.0';
  id: string | number;
  error: { code: number; message: string };
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`);

/**
 * Why `message` is not a JSON-RPC 2.0 request, notification or response, or null when it is one.
 * @example messageProblem({ jsonrpc: '2.0', id: null, method: 'ping' }); // 'id must be a string or a number (got null)'
 */
export function messageProblem(message: unknown): string | null {
  if (!isObject(message))
    return `a message is an object {"jsonrpc": "2.0", "method", "params"?, "id"?} (got ${kind(message)})`;
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== '2.0') return `"jsonrpc" must be "2.0" (got ${JSON.stringify(jsonrpc) ?? 'none'})`;
  if (id !== undefined && typeof id !== 'string' && typeof id !== 'number')
    return `"id" must be a string or a number (got ${kind(id)})`;
  if (method === undefined) {
    if (id !== undefined && ('result' in message || 'error' in message))
      return issuesLine(envelopeSchema(message).safeParse(message));
    return 'a message needs a "method" (a request or notification), or an "id" with "result" or "error" (a response)';
  }
  if (typeof method !== 'string') return `"method" must be a string (got ${kind(method)})`;
  if (params !== undefined && !isObject(params)) return `"params" must be an object (got ${kind(params)})`;
  // What else the SDK's schema asks (an integer id, no other keys, params._meta an object): the
  // transport's answer to it is "-32700 Parse error: Invalid JSON-RPC message", naming nothing.
  return issuesLine(envelopeSchema(message).safeParse(message));
}

/** The SDK's schema for the kind of message `message` is. */
function envelopeSchema(message: Record<string, unknown>): Schema {
  if (message.method !== undefined)
    return message.id === undefined ? JSONRPCNotificationSchema : JSONRPCRequestSchema;
  return 'error' in message ? JSONRPCErrorResponseSchema : JSONRPCResultResponseSchema;
}

type Issue = { path: readonly PropertyKey[]; message: string; code: string };
type Schema = { safeParse(v: unknown): { success: true } | { success: false; error: { issues: Issue[] } } };

/** A failed parse's issues in one line (`params.cursor: Invalid input: …`), or null when it passed. */
function issuesLine(result: ReturnType<Schema['safeParse']>): string | null {
  if (result.success) return null;
  const line = result.error.issues
    .map((i) => `${i.path.map(String).join('.') || '(message)'}: ${issueText(i)}`)
    .join('; ');
  return clipText(line, 500);
}

/** The requests this server answers, whose params the SDK checks with these schemas. */
const REQUEST_SCHEMAS: Readonly<Record<string, Schema>> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
};

/**
 * A request whose params its method's schema refuses — a `tools/call` whose params are not
 * `{name: string, arguments?: object}`, an `initialize` without `protocolVersion`, a `tools/list`
 * whose `cursor` is a number: its `-32602` answer in one line (the SDK answers `-32603 Internal
 * error` with its schema's issues as a multi-line message). Null for anything else, which the
 * transport answers.
 * @example requestParamsProblem({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 5 } })?.error.code; // -32602
 */
export function requestParamsProblem(message: unknown): JsonRpcRefusal | null {
  if (!isObject(message)) return null;
  const { method, id, params } = message;
  if (typeof method !== 'string' || (typeof id !== 'string' && typeof id !== 'number')) return null;
  const schema = REQUEST_SCHEMAS[method];
  if (!schema) return null;
  const problem =
    (method === 'tools/call' ? toolCallProblem(params) : null) ??
    issuesLine(schema.safeParse({ method, params }));
  return problem
    ? { jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${problem}` } }
    : null;
}

/** What is wrong with a `tools/call`'s params, said as a person would. */
function toolCallProblem(params: unknown): string | null {
  let problem: string | null = null;
  if (!isObject(params))
    problem = `params must be an object {name, arguments?} (got ${params === undefined ? 'none' : kind(params)})`;
  else {
    const { name, arguments: args } = params;
    if (typeof name !== 'string')
      problem = `params.name must be a tool name (got ${name === undefined ? 'none' : kind(name)})`;
    else if (args !== undefined && !isObject(args))
      problem = `params.arguments must be an object (got ${kind(args)})`;
    // The SDK reads arguments into a new object by assignment, where "__proto__" sets the prototype:
    // the key would vanish unread, as no route's body takes it (the API refuses it as unknown).
    else if (args !== undefined && Object.hasOwn(args, '__proto__'))
      problem = 'params.arguments holds the key "__proto__", which no tool takes: leave it out';
  }
  return problem;
}
