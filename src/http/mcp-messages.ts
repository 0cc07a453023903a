/**
 * What is wrong with a message posted to `/mcp`, answered before the SDK's transport reads it: a JSON
 * value that is not a JSON-RPC 2.0 message is `-32600 Invalid Request` saying what is missing (the
 * transport calls it `-32700 Parse error`, which is for text that is not JSON), and a `tools/call`
 * whose params are not `{name, arguments?}` is `-32602 Invalid params` in one line (the SDK answers
 * `-32603 Internal error` with its schema's issues as the message), as are arguments with the key
 * `__proto__` (which the SDK would drop unseen) — in a batch as alone.
 */
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';

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
    if (id !== undefined && ('result' in message || 'error' in message)) return null;
    return 'a message needs a "method" (a request or notification), or an "id" with "result" or "error" (a response)';
  }
  if (typeof method !== 'string') return `"method" must be a string (got ${kind(method)})`;
  if (params !== undefined && !isObject(params)) return `"params" must be an object (got ${kind(params)})`;
  return null;
}

/**
 * A `tools/call` request whose params are not `{name: string, arguments?: object}`: its `-32602`
 * answer. Null for anything else, which the transport answers.
 * @example toolCallParamsProblem({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 5 } })?.error.code; // -32602
 */
export function toolCallParamsProblem(message: unknown): JsonRpcRefusal | null {
  if (!isObject(message)) return null;
  const { method, id, params } = message;
  if (method !== 'tools/call' || (typeof id !== 'string' && typeof id !== 'number')) return null;
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
  return problem
    ? { jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${problem}` } }
    : null;
}
