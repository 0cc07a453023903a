/**
 * What the loopback MCP servers of these tests share: reading a request's body, answering an MCP
 * request through the SDK's transport, and their own routes — `/<prefix>-stats?path=` (a path's counters as JSON), `/<prefix>-down?path=&down=` (that
 * path answers 503 until set back) — and the 503 of a path taken down.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { IncomingMessage, ServerResponse } from '../../scripts/eval/node-api';

/** The request's body as text. */
export async function readText(req: IncomingMessage): Promise<string> {
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of req) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/**
 * Answers a harness route or a path taken down; false when `url` is for the MCP server itself.
 * @example if (answerHarness(url, res, { prefix: 'mcp', stats, empty: { list_calls: 0 }, down })) return;
 */
export function answerHarness(
  url: URL,
  res: ServerResponse,
  o: { prefix: string; stats: Record<string, unknown>; empty: unknown; down: Set<string> },
): boolean {
  const path = url.searchParams.get('path') ?? '';
  if (url.pathname === `/${o.prefix}-stats`) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(o.stats[path] ?? o.empty));
    return true;
  }
  if (url.pathname === `/${o.prefix}-down`) {
    if (url.searchParams.get('down') === 'true') o.down.add(path);
    else o.down.delete(path);
    res.writeHead(204, {});
    res.end();
    return true;
  }
  if (o.down.has(url.pathname)) {
    res.writeHead(503, { 'content-type': 'text/plain' });
    res.end('down for maintenance');
    return true;
  }
  return false;
}

/**
 * Answers one MCP POST (already read: `text`, parsed as `body`) with a fresh `server` on a stateless
 * Streamable HTTP transport answering in JSON, then closes it.
 * @example await answerMcp(mcpServer(), req, res, url, text, JSON.parse(text));
 */
export async function answerMcp(
  server: McpServer | Server,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  text: string,
  body: unknown,
): Promise<void> {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers))
    if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  await server.connect(transport);
  const response = await transport.handleRequest(new Request(url, { method: 'POST', headers, body: text }), {
    parsedBody: body,
  });
  const out: Record<string, string> = {};
  response.headers.forEach((value, key) => (out[key] = value));
  res.writeHead(response.status, out);
  res.end(await response.text());
  await server.close();
}
