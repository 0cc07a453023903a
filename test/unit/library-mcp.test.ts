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
import { LocalRunner, mcpTools, type McpServerConfig, type McpToolsOptions } from '../../src/index';
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

describe('mcpTools checks what a team hands it', () => {
  const url = () => `http://127.0.0.1:${port}/mcp`;
  const refusal = async (run: () => Promise<unknown>) => {
    const err = await run().then(
      () => null,
      (e: unknown) => e as { code?: string; message?: string },
    );
    return err && { code: err.code, message: err.message };
  };

  it('refuses a misspelt or mistyped option with invalid_options naming it, before any server is asked', async () => {
    let listedBy = 0;
    const counting: typeof fetch = (input, init) => {
      listedBy += 1;
      return fetch(input, init);
    };
    const servers = [{ name: 'math', url: url() }];
    expect(
      await refusal(() =>
        mcpTools(servers, { env: {}, fetch: counting, onListErrors: () => {} } as unknown as McpToolsOptions),
      ),
    ).toEqual({
      code: 'invalid_options',
      message: 'Invalid mcpTools options: Unknown key "onListErrors" (did you mean "onListError"?)',
    });
    expect(
      await refusal(() =>
        mcpTools(servers, {
          env: {},
          fetch: counting,
          ttlSeconds: 30,
          kv: new Map(),
        } as unknown as McpToolsOptions),
      ),
    ).toEqual({
      code: 'invalid_options',
      message:
        'Invalid mcpTools options: kv: must have get(key, "json") and put(key, value, {expirationTtl}), as a KV namespace does; ttlSeconds: must be at least 60',
    });
    expect(await refusal(() => mcpTools(servers, undefined as unknown as McpToolsOptions))).toEqual({
      code: 'invalid_options',
      message: 'Invalid mcpTools options: the value is required (an object)',
    });
    expect(listedBy).toBe(0);
  });

  it('holds each server to what MCP_SERVERS takes: mcp_config_invalid naming the entry, none asked', async () => {
    const bad = await refusal(() =>
      mcpTools([{ name: 'math', URL: url() } as unknown as McpServerConfig], { env: {} }),
    );
    expect(bad?.code).toBe('mcp_config_invalid');
    expect(bad?.message).toMatch(/entry 0|\[0\]/);
    const dotted = await refusal(() => mcpTools([{ name: 'my.math', url: url() }], { env: {} }));
    expect(dotted?.code).toBe('mcp_config_invalid');
    // And what is well-formed still lists.
    expect((await mcpTools([{ name: 'math', url: url() }], { env: {}, refresh: true })).length).toBe(2);
  });
});
