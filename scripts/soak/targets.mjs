// What the soak's runs call on loopback: an HTTP server for `http.request` steps (answers each
// request with what it got, so every step's output differs) and a real MCP server (the SDK, stateless
// Streamable HTTP) named in MCP_SERVERS, one tool `echo`. Both on free ports of 127.0.0.1.
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { serveMcp } from '../mcp-loopback.mjs';

/** Starts both; resolves with their URLs, a count of requests each served, and close(). */
export async function startTargets() {
  const served = { http: 0, mcp: 0 };
  const http = createServer((req, res) => {
    served.http++;
    res.writeHead(200, { 'content-type': 'application/json', 'x-served': String(served.http) });
    res.end(JSON.stringify({ path: req.url, soak: req.headers['x-soak'] ?? null, n: served.http }));
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  const mcp = await serveMcp(
    () => {
      const server = new McpServer({ name: 'edgeplan-soak', version: '1.0.0' });
      server.registerTool(
        'echo',
        { description: 'Returns its input', inputSchema: { i: z.number() }, outputSchema: { i: z.number() } },
        ({ i }) => ({ content: [{ type: 'text', text: String(i) }], structuredContent: { i } }),
      );
      return server;
    },
    { onRequest: () => served.mcp++ },
  );
  return {
    httpUrl: `http://127.0.0.1:${http.address().port}`,
    mcpUrl: `http://127.0.0.1:${mcp.address().port}/mcp`,
    served,
    close() {
      http.close();
      mcp.close();
    },
  };
}
