// A real MCP server on loopback for the scripts (the example's check, the MCP bench): the official
// SDK over Streamable HTTP, stateless with JSON answers — each request gets a fresh server from
// `makeServer()` — on a free port of 127.0.0.1.
import { createServer } from 'node:http';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

/**
 * Listens on a free loopback port; resolves with the node:http server (its port in `address()`).
 * `onRequest(method, body)` hears each request as it arrives: its HTTP method and body text.
 * @example const http = await serveMcp(() => myMcpServer()); `http://127.0.0.1:${http.address().port}/mcp`
 */
export async function serveMcp(makeServer, { onRequest } = {}) {
  const http = createServer(async (req, res) => {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await makeServer().connect(transport);
    const chunks = [];
    for await (const c of req) chunks.push(c);
    onRequest?.(req.method, Buffer.concat(chunks).toString('utf8'));
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    const answer = await transport.handleRequest(
      new Request(`http://127.0.0.1${req.url}`, {
        method: req.method,
        headers,
        ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
      }),
    );
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  return http;
}
