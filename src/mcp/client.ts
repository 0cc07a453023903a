/**
 * One MCP session with a configured server over Streamable HTTP (the SDK's client), and how its
 * failures become step errors: a server that cannot be reached, or answers 5xx / 429, is a retryable
 * `mcp_unreachable`; a refusal (JSON-RPC error, other 4xx) is `mcp_error`, not retried.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '../errors';
import type { McpServerConfig } from './config';
import { zodJsonSchemaValidator } from './json-schema';

/** How the client introduces itself to servers. */
const CLIENT_INFO = { name: 'edgeplan', version: '0.1.0' };

export type McpConnectOptions = {
  /** Resolved headers (secrets substituted). */
  headers: Record<string, string>;
  /** The fetch to use; the runtime's own by default. */
  fetch?: typeof fetch;
  signal?: AbortSignal;
};

/**
 * Runs `use` with a connected client, then closes the session whatever happens; errors come out as
 * {@link ToolError}s (see the module comment).
 * @example
 * const tools = await withMcpClient(server, { headers: {} }, (client) => client.listTools());
 */
export async function withMcpClient<T>(
  server: McpServerConfig,
  opts: McpConnectOptions,
  use: (client: Client) => Promise<T>,
): Promise<T> {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: opts.headers },
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  const client = new Client(CLIENT_INFO, { jsonSchemaValidator: zodJsonSchemaValidator });
  try {
    await client.connect(transport, opts.signal ? { signal: opts.signal } : undefined);
    return await use(client);
  } catch (err) {
    throw toMcpToolError(server, err);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/**
 * A failure talking to `server`, as the step error it becomes.
 * @example toMcpToolError(server, new TypeError('fetch failed')).retryable; // true
 */
export function toMcpToolError(server: McpServerConfig, err: unknown): Error {
  if (err instanceof ToolError) return err;
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) return err;
  const where = `MCP server "${server.name}"`;
  if (err instanceof StreamableHTTPError) {
    const status = err.code ?? 0;
    const retryable = status >= 500 || status === 429 || status === 0;
    return new ToolError(retryable ? 'mcp_unreachable' : 'mcp_error', `${where}: ${err.message}`, {
      retryable,
    });
  }
  if (err instanceof McpError) {
    if (err.code === Number(ErrorCode.RequestTimeout))
      return new ToolError('timeout', `${where}: ${err.message}`, { retryable: true });
    if (err.code === Number(ErrorCode.ConnectionClosed))
      return new ToolError('mcp_unreachable', `${where}: ${err.message}`, { retryable: true });
    return new ToolError('mcp_error', `${where}: ${err.message}`, { retryable: false });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ToolError('mcp_unreachable', `${where} could not be reached (${server.url}): ${message}`, {
    retryable: true,
  });
}
