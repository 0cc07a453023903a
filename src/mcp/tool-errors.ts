/**
 * How a failure talking to an MCP server becomes a step's error: which code, whether it is retried,
 * and a message that never holds the configured headers' values (client.ts's header comment lists
 * the codes).
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '../errors';
import { redactSecrets } from '../planner/redact';
import type { McpServerConfig } from './config';
import { issueText } from '../issue-text';

/**
 * The values `headers` carry (and each one's credential after a scheme such as `Bearer`): what no
 * message edgeplan records about the server may hold.
 * @example headerSecrets({ Authorization: 'Bearer s3cret' }); // ['Bearer s3cret', 's3cret']
 */
export function headerSecrets(headers: Record<string, string>): string[] {
  const out: string[] = [];
  for (const value of Object.values(headers)) {
    out.push(value);
    const credential = /^\S+\s+(\S.*)$/.exec(value)?.[1];
    if (credential) out.push(credential);
  }
  // Longest first, so a whole value is redacted before a part of it.
  return out.sort((a, b) => b.length - a.length);
}

/**
 * A failure talking to `server`, as the step error it becomes; `secrets` (the configured headers'
 * values) never appear in its message. `askedWaitMs` is what the server's refusal asked in its
 * `Retry-After` (a 429 or 503): the retry waits that long (limited-fetch.ts keeps it).
 * @example toMcpToolError(server, new TypeError('fetch failed')).retryable; // true
 */
export function toMcpToolError(
  server: McpServerConfig,
  err: unknown,
  secrets: readonly string[] = [],
  askedWaitMs?: number,
): Error {
  const clean = (text: string) => redactSecrets(text, secrets);
  if (err instanceof ToolError)
    return new ToolError(err.code, clean(err.message), {
      retryable: err.retryable,
      retryAfterMs: err.retryAfterMs,
    });
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) return err;
  const where = `MCP server "${server.name}"`;
  if (err instanceof StreamableHTTPError) {
    const status = err.code ?? 0;
    const retryable = status >= 500 || status === 429 || status === 0;
    // What a server on the older HTTP+SSE transport (a GET stream, then POSTs elsewhere) answers.
    const hint =
      status === 404 || status === 405
        ? ' (edgeplan speaks Streamable HTTP: give the URL of the server’s Streamable HTTP endpoint; one on the older HTTP+SSE transport answers a POST this way)'
        : '';
    return new ToolError(
      retryable ? 'mcp_unreachable' : 'mcp_error',
      clean(`${where}: ${err.message}${hint}`),
      { retryable, ...(retryable && askedWaitMs !== undefined ? { retryAfterMs: askedWaitMs } : {}) },
    );
  }
  if (err instanceof McpError) {
    // The SDK's own timeout and closed connection share their codes with a server's errors
    // (-32001 and -32000, the range JSON-RPC leaves to servers; -32000 is many servers' "server
    // error"): only the SDK's messages are its own, and a server's refusal is not retried.
    const own = SDK_ERRORS.get(err.code)?.has(err.message.replace(/^MCP error -?\d+: /, ''));
    if (own && err.code === Number(ErrorCode.RequestTimeout))
      return new ToolError('timeout', clean(`${where}: ${err.message}`), { retryable: true });
    if (own && err.code === Number(ErrorCode.ConnectionClosed))
      return new ToolError('mcp_unreachable', clean(`${where}: ${err.message}`), { retryable: true });
    return new ToolError('mcp_error', clean(`${where}: ${err.message}`), { retryable: false });
  }
  if (err instanceof SyntaxError) {
    return new ToolError(
      'mcp_bad_response',
      clean(
        `${where} answered with something that is not JSON (${err.message.slice(0, 120)}); not retried: a call may have had its effect`,
      ),
      { retryable: false },
    );
  }
  if (isSchemaRefusal(err)) {
    const issues = err.issues
      .slice(0, 3)
      .map((i) => `${i.path.map(String).join('.') || '(root)'}: ${issueText(i)}`)
      .join('; ');
    return new ToolError(
      'mcp_bad_response',
      clean(`${where} answered with a message MCP does not allow (${issues})`),
      { retryable: false },
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ToolError(
    'mcp_unreachable',
    // Only the origin: hosted MCP servers put their key in the URL's path (…/s/<key>/mcp).
    clean(`${where} could not be reached (${new URL(server.url).origin}): ${message}`),
    { retryable: true },
  );
}

/** The messages of the errors the SDK raises itself (src/shared/protocol.ts), by code. */
const SDK_ERRORS: ReadonlyMap<number, ReadonlySet<string>> = new Map([
  [Number(ErrorCode.ConnectionClosed), new Set(['Connection closed', 'Request was cancelled'])],
  [Number(ErrorCode.RequestTimeout), new Set(['Request timed out', 'Maximum total timeout exceeded'])],
]);

/** The SDK's zod refusal of an answer that does not fit the protocol's schema (zod mini names it `$ZodError`). */
export function isSchemaRefusal(
  err: unknown,
): err is { issues: { path: PropertyKey[]; message: string; code: string }[] } & Error {
  return (
    err instanceof Error &&
    (err.name === 'ZodError' || err.name === '$ZodError') &&
    Array.isArray((err as { issues?: unknown }).issues)
  );
}
