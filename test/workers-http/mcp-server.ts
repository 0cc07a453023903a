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
 * - `GET /mcp-handshakes?path=<path>` → `{requests, initialize, initialized, call_calls, refused,
 *   call_versions}`: the path's HTTP requests (any method), its `initialize` requests and
 *   `notifications/initialized`, the `tools/call`s it ran and those it refused (below), and the
 *   `MCP-Protocol-Version` each ran call came with (`null`: none)
 * - `POST /mcp-needs-init?path=<path>&refuse=off|http|rpc` → from now on that path runs a `tools/call`
 *   only when an `initialize` reached it since its last call, as a server that wants the handshake
 *   before every call; it refuses any other with the SDK's words, `Bad Request: Server not
 *   initialized` — a 400 (`http`) or a JSON-RPC error -32002 in a 200 (`rpc`) — without running it
 * - `POST /mcp-restart` → the server drops its idle connections, as a restarted process has none: a
 *   stateless server remembers nothing else
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

/** What `/mcp-handshakes` counts for a path. */
export type Handshakes = {
  requests: number;
  initialize: number;
  initialized: number;
  call_calls: number;
  refused: number;
  call_versions: (string | null)[];
};
const handshakes = new Map<string, Handshakes>();
/** Paths that want `initialize` before each call, how they refuse one without, and whether one came. */
const needsInit = new Map<string, { refuse: 'http' | 'rpc'; initialized: boolean }>();
/** The listening server (`/mcp-restart` drops its idle connections). */
let listening: HttpServer & { closeIdleConnections?: () => void };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stats: Stats = {};
  const server = http().createServer((req, res) => {
    bridge(req, res, stats).catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
  });
  listening = server;
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
  if (answerHandshakeRoutes(url, res)) return;
  if (url.pathname.startsWith('/mcp/')) handshakesOf(url.pathname).requests++;
  if (!url.pathname.startsWith('/mcp') || req.method !== 'POST') {
    // No standalone SSE stream and no sessions to delete: stateless.
    res.writeHead(url.pathname.startsWith('/mcp') ? 405 : 404, { 'content-type': 'text/plain' });
    res.end('not here');
    return;
  }
  const s = (stats[url.pathname] ??= { list_calls: 0, call_calls: 0 });
  const body: unknown = JSON.parse(text);
  const messages = (Array.isArray(body) ? body : [body]) as { method?: unknown; id?: unknown }[];
  const h = handshakesOf(url.pathname);
  const wants = needsInit.get(url.pathname);
  for (const message of messages) {
    if (message.method === 'initialize') {
      h.initialize++;
      if (wants) wants.initialized = true;
    }
    if (message.method === 'notifications/initialized') h.initialized++;
    if (message.method !== 'tools/call') continue;
    if (wants && !wants.initialized) {
      h.refused++;
      refuseUninitialized(res, wants.refuse, message.id);
      return;
    }
    if (wants) wants.initialized = false;
    const version = req.headers['mcp-protocol-version'];
    h.call_versions.push(typeof version === 'string' ? version : null);
    h.call_calls++;
  }
  for (const message of messages) {
    const method = message.method;
    if (method === 'tools/list') s.list_calls++;
    if (method === 'tools/call') s.call_calls++;
  }
  await answerMcp(mcpServer(), req, res, url, text, body);
}

function handshakesOf(path: string): Handshakes {
  let h = handshakes.get(path);
  if (!h) {
    h = { requests: 0, initialize: 0, initialized: 0, call_calls: 0, refused: 0, call_versions: [] };
    handshakes.set(path, h);
  }
  return h;
}

/** `/mcp-handshakes`, `/mcp-needs-init` and `/mcp-restart` (see the header); false for any other path. */
function answerHandshakeRoutes(url: URL, res: ServerResponse): boolean {
  const path = url.searchParams.get('path') ?? '';
  if (url.pathname === '/mcp-handshakes') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(handshakesOf(path)));
    return true;
  }
  if (url.pathname === '/mcp-needs-init') {
    const refuse = url.searchParams.get('refuse');
    if (refuse === 'http' || refuse === 'rpc') needsInit.set(path, { refuse, initialized: false });
    else needsInit.delete(path);
    res.writeHead(204, {});
    res.end();
    return true;
  }
  if (url.pathname === '/mcp-restart') {
    listening.closeIdleConnections?.();
    res.writeHead(204, { connection: 'close' });
    res.end();
    return true;
  }
  return false;
}

/** A call refused before it runs, as a server that has not seen `initialize` says so. */
function refuseUninitialized(res: ServerResponse, how: 'http' | 'rpc', id: unknown): void {
  const error = { code: how === 'http' ? -32000 : -32002, message: 'Bad Request: Server not initialized' };
  res.writeHead(how === 'http' ? 400 : 200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error, id: how === 'http' ? null : id }));
}
