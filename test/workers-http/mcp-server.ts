/**
 * Vitest globalSetup for the `workers-http` project: a real MCP server (the SDK's `McpServer` over its
 * Web-standard Streamable HTTP transport, stateless, JSON responses) on 127.0.0.1 in Node, so the MCP
 * tool source is tested from the Workers runtime against the real protocol. Its port reaches the tests
 * as `inject('mcpPort')` (the port vitest.config.mts chose for `MCP_SERVERS`, in
 * `EDGEPLAN_TEST_MCP_PORT`); a port nobody listens on as `inject('closedPort')`.
 *
 * Every path under `/mcp` is the same server (give each test a path of its own). Tools:
 * - `add {a, b}` → structured `{sum}` (declares an output schema)
 * - `fail {}` → an `isError` result with the text `the fail tool always fails`
 * - `echo_meta {}` → structured `{meta}`: the `_meta` the call carried
 * - `whoami {}` → structured `{authorization}`: the Authorization header the call came with
 * - `shout {text}` → text content only (no output schema): the text upper-cased
 * - `forecast {city}` → text content only; declared with `z.strictObject`, so listed with
 *   `additionalProperties: false` (a closed schema: edgeplan refuses a key it does not declare)
 * - `book {city, stay: {nights, guests?}}` → text content only; strict at both levels, so a key
 *   inside `stay` is refused too
 * - `label {text, color?, x_…}` → text content only; its JSON Schema closes the object with
 *   `additionalProperties: false` beside `minProperties`, `propertyNames` and `patternProperties`
 *   (keys `x_…` taken too), which zod converts to a key guard and an intersection, not a plain object
 * - `GET /mcp-stats?path=<path>` → `{list_calls, call_calls}` that path has had
 * - `POST /mcp-down?path=<path>&down=true|false` → that path answers 503 (an outage) until set back
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { TestProject } from 'vitest/node';
import { z } from 'zod';
import {
  http,
  nodeProcess,
  type HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from '../../scripts/eval/node-api';
import { answerHarness, answerMcp, readText } from './mcp-harness-routes';

declare module 'vitest' {
  export interface ProvidedContext {
    mcpPort: number;
    closedPort: number;
  }
}

type Stats = Record<string, { list_calls: number; call_calls: number }>;

/** Paths in an outage (503). */
const down = new Set<string>();

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stats: Stats = {};
  const server = http().createServer((req, res) => {
    bridge(req, res, stats).catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
  });
  const fixed = Number(nodeProcess().env.EDGEPLAN_TEST_MCP_PORT ?? 0);
  project.provide('mcpPort', await listen(server, fixed));
  // A port that was just free: nothing listens there during the tests.
  const probe = http().createServer(() => undefined);
  project.provide('closedPort', await listen(probe));
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}

function listen(server: HttpServer, port = 0): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('no TCP port'));
      else resolve(address.port);
    });
  });
}

/** The MCP server, built per request (stateless mode). */
function mcpServer(): McpServer {
  const server = new McpServer({ name: 'edgeplan-test', version: '1.2.3' });
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
      annotations: { readOnlyHint: true },
    },
    ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  server.registerTool('fail', { description: 'Always fails', inputSchema: {} }, () => ({
    isError: true,
    content: [{ type: 'text', text: 'the fail tool always fails' }],
  }));
  server.registerTool(
    'echo_meta',
    { description: 'Returns the _meta of the call', inputSchema: {}, outputSchema: { meta: z.unknown() } },
    (_args, extra) => ({ content: [], structuredContent: { meta: extra._meta ?? null } }),
  );
  server.registerTool(
    'whoami',
    {
      description: 'Returns the Authorization header',
      inputSchema: {},
      outputSchema: { authorization: z.string().nullable() },
    },
    (_args, extra) => {
      const value = extra.requestInfo?.headers.authorization;
      const authorization = Array.isArray(value) ? value.join(', ') : (value ?? null);
      return { content: [], structuredContent: { authorization } };
    },
  );
  server.registerTool(
    'shout',
    { description: 'Upper-cases text', inputSchema: { text: z.string() } },
    ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }),
  );
  server.registerTool(
    'forecast',
    { description: 'Says the weather in a city', inputSchema: z.strictObject({ city: z.string() }) },
    ({ city }) => ({ content: [{ type: 'text', text: `sunny in ${city}` }] }),
  );
  server.registerTool(
    'book',
    {
      description: 'Books a stay',
      inputSchema: z.strictObject({
        city: z.string(),
        stay: z.strictObject({ nights: z.number().int().min(1), guests: z.number().int().optional() }),
      }),
    },
    ({ city, stay }) => ({ content: [{ type: 'text', text: `${stay.nights} nights in ${city}` }] }),
  );
  server.registerTool(
    'label',
    {
      description: 'Labels a thing',
      // JSON Schema keywords zod has no method for, carried into the listed schema as metadata.
      inputSchema: z.strictObject({ text: z.string(), color: z.string().optional() }).meta({
        minProperties: 1,
        propertyNames: { pattern: '^[a-z_]+$' },
        patternProperties: { '^x_': { type: 'string' } },
      }),
    },
    ({ text }) => ({ content: [{ type: 'text', text: `labelled ${text}` }] }),
  );
  return server;
}

/** node:http → a Web Request → the SDK's transport → back. */
async function bridge(req: IncomingMessage, res: ServerResponse, stats: Stats): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const text = await readText(req);
  if (answerHarness(url, res, { prefix: 'mcp', stats, empty: { list_calls: 0, call_calls: 0 }, down }))
    return;
  if (!url.pathname.startsWith('/mcp') || req.method !== 'POST') {
    // No standalone SSE stream and no sessions to delete: stateless.
    res.writeHead(url.pathname.startsWith('/mcp') ? 405 : 404, { 'content-type': 'text/plain' });
    res.end('not here');
    return;
  }
  const s = (stats[url.pathname] ??= { list_calls: 0, call_calls: 0 });
  const body: unknown = JSON.parse(text);
  for (const message of Array.isArray(body) ? body : [body]) {
    const method = (message as { method?: unknown }).method;
    if (method === 'tools/list') s.list_calls++;
    if (method === 'tools/call') s.call_calls++;
  }
  await answerMcp(mcpServer(), req, res, url, text, body);
}
