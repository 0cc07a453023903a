/**
 * `/mcp` speaks JSON-RPC: a body the API's shared checks refuse before the MCP route runs (not JSON,
 * nested too deep, too large, another media type) is answered as a JSON-RPC error an MCP client can
 * read — `-32700` for a body that does not parse, `-32600` for the rest, `id: null` — with the API's
 * code and details in `data` and the same HTTP status. Auth refusals (401) stay as they are: MCP's
 * authorization answers them at the HTTP level.
 */
import type { MiddlewareHandler } from 'hono';

const REFUSALS = new Set([400, 413, 415]);

/**
 * @example app.use('/mcp', jsonRpcErrors()) // before the body checks it wraps
 */
export function jsonRpcErrors(): MiddlewareHandler {
  return async function jsonRpcErrors(c, next) {
    await next();
    if (!REFUSALS.has(c.res.status)) return;
    const envelope: unknown = await c.res
      .clone()
      .json()
      .catch(() => null);
    const error = (envelope as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)
      ?.error;
    // The route's own JSON-RPC errors carry a numeric code: left alone.
    if (typeof error?.code !== 'string' || typeof error.message !== 'string') return;
    const code = error.code === 'invalid_json' ? -32700 : -32600;
    const data =
      error.details === undefined ? { code: error.code } : { code: error.code, details: error.details };
    c.res = c.json(
      { jsonrpc: '2.0', error: { code, message: error.message, data }, id: null },
      c.res.status as 400,
    );
  };
}
