/**
 * MCP tools in process, through the package's entry point: `mcpTools` lists a real MCP server (the
 * SDK's `McpServer` over its Streamable HTTP transport, stateless, on loopback) and its tools run in a
 * `LocalRunner` as in the Worker (test/workers-http/mcp-runs.test.ts): a structured answer is the
 * step's output, an `isError` answer fails the step as `mcp_tool_error` with the server's text.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LocalRunner, mcpTools } from '../../src/index';
import {
  http,
  type HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from '../../scripts/eval/node-api';

function mathServer(): McpServer {
  const server = new McpServer({ name: 'edgeplan-library-test', version: '1.0.0' });
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  server.registerTool('fail', { description: 'Always fails', inputSchema: {} }, () => ({
    isError: true,
    content: [{ type: 'text', text: 'the fail tool always fails' }],
  }));
  return server;
}

async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Uint8Array[] = [];
  for await (const c of req) chunks.push(c);
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  const server = mathServer();
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  await server.connect(transport);
  const url = `http://127.0.0.1${req.url ?? '/'}`;
  const response = await transport.handleRequest(
    new Request(url, { method: req.method ?? 'POST', headers, ...(text ? { body: text } : {}) }),
    text ? { parsedBody: JSON.parse(text) as unknown } : undefined,
  );
  const out: Record<string, string> = {};
  response.headers.forEach((value, key) => (out[key] = value));
  res.writeHead(response.status, out);
  res.end(await response.text());
  await server.close();
}

let listening: HttpServer;
let port = 0;

beforeAll(async () => {
  listening = http().createServer((req, res) => {
    answer(req, res).catch(() => {
      res.writeHead(500, {});
      res.end();
    });
  });
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  const addr = listening.address();
  port = typeof addr === 'object' && addr ? addr.port : 0;
});

afterAll(() => new Promise<void>((resolve) => listening.close(() => resolve())));

describe('mcpTools in a LocalRunner', () => {
  it('runs a listed tool with its structured answer as the output, and fails a step the server answers isError', async () => {
    const tools = await mcpTools([{ name: 'math', url: `http://127.0.0.1:${port}/mcp` }], { env: {} });
    expect(tools.map((t) => t.name).sort()).toEqual(['mcp.math.add', 'mcp.math.fail']);

    const ok = new LocalRunner({ tools });
    ok.start({ plan: { steps: [{ id: 'add', action: 'mcp.math.add', parameters: { a: 2, b: 3 } }] } });
    const done = await ok.done();
    expect(done.status).toBe('completed');
    expect(done.step_results.add).toMatchObject({ sum: 5 });

    const bad = new LocalRunner({ tools });
    bad.start({
      plan: { steps: [{ id: 'f', action: 'mcp.math.fail', parameters: {} }] },
      config: { retry_failed_steps: 0 },
    });
    expect((await bad.done()).status).toBe('failed');
    expect(JSON.stringify(bad.events)).toContain(
      '"code":"mcp_tool_error","message":"mcp.math.fail: the fail tool always fails"',
    );
  });
});
