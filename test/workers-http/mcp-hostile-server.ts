/**
 * Vitest globalSetup for the `workers-http` project: an MCP server that misbehaves (the SDK's low-level
 * `Server` over its Web-standard Streamable HTTP transport, stateless, JSON responses, on 127.0.0.1 in
 * Node), so edgeplan's MCP tool source is tested against what a broken or hostile server really sends.
 * Its port reaches the tests as `inject('hostileMcpPort')` (the port vitest.config.mts chose for
 * `MCP_SERVERS`, in `EDGEPLAN_TEST_HOSTILE_MCP_PORT`).
 *
 * The path says how it misbehaves: `/h/<mode>/<anything>` (give each test a path of its own; requests
 * are counted per path). Modes:
 * - `many` — `tools/list` gives 5,000 tools, 100 a page
 * - `bigList` — one tool whose description is 8 MB
 * - `flood` — one `tools/list` page of 100,000 tools (8 MB)
 * - `fat` — 200 tools whose inputSchema has 1,000 properties each (17 MB over 2 pages)
 * - `names` — tools named `a.b`, `ünï`, `x` ×10,000, `http.request`, and `dup` twice
 * - `names-path` — tools named `fs/read`, `../../etc/passwd`, `a.b.c`, `y` ×128, `z` ×129 and `` (empty)
 * - `schemas` — tools whose inputSchema is invalid (`properties: 5`), nested 1,000 deep, or a `$ref` loop
 *   (`schemas-<one>` lists only that one; `schemas-longkey`: a property of 100,000 characters that is not
 *   a schema)
 * - `hang` — `tools/call` is never answered (the socket stays open)
 * - `drop` — `tools/call`'s connection is destroyed before an answer
 * - `huge` — `tools/call` answers 40 MB of text
 * - `content` — `tools/call` answers an image, a resource link, an embedded binary resource and text
 * - `malformed` — `tools/call` answers content the protocol does not have (`{type: "weird"}`)
 * - `mismatch` — a tool with outputSchema `{sum: number}` answers structuredContent `{sum: "many"}`
 * - `leak` — needs `Authorization`; without the right one a 401 whose body echoes the header sent,
 *   and `tools/call` answers `isError` with the Authorization header in its text
 * - `redirect` — every request is answered 307 to http://169.254.169.254/latest/meta-data/
 * - `sse` — the old HTTP+SSE transport's endpoint: POST is 405, GET opens an event stream
 * - `slow` — `tools/list` answers after 300 ms
 * - `nonjson` — `tools/call` answers 200 `application/json` whose body is HTML
 * - `nonjson-sse` — `tools/call` answers an event stream whose one event is not JSON
 * - `untyped` — like `mismatch`, but `tools/call` answers text only, no structuredContent
 * - `gone` — lists only `ok`; `tools/call` of any other tool is the JSON-RPC error `Unknown tool: <name>`
 * - `error-32000`, `error-32001` — `tools/call` answers the JSON-RPC error of that code, `the tool broke`
 * - `wrong-id` — `tools/call` is answered with another request's id (the call's id + 1000)
 * - `busy` — `tools/call` answers 429 with `Retry-After: 120`; `busy-date` answers 503 with a
 *   `Retry-After` date 90 s ahead; `busy-bogus` answers 429 with `Retry-After: soon` (no wait)
 * Every mode also lists `ok {}` → text `ok`.
 * - `GET /h-stats?path=<path>` → `{list_calls, call_calls, requests}` that path has had
 * - `POST /h-down?path=<path>&down=true|false` → that path answers 503 (an outage) until set back
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { TestProject } from 'vitest/node';
import { http, nodeProcess, type IncomingMessage, type ServerResponse } from '../../scripts/eval/node-api';
import { answerHarness, answerMcp, readText } from './mcp-harness-routes';

declare module 'vitest' {
  export interface ProvidedContext {
    hostileMcpPort: number;
  }
}

type Stats = Record<string, { list_calls: number; call_calls: number; requests: number }>;

/** The socket under a request, which `drop` destroys and teardown ends. */
type Socket = { destroy(): void };
type NodeRequest = IncomingMessage & { socket: Socket };
type NodeServer = ReturnType<ReturnType<typeof http>['createServer']> & { closeAllConnections(): void };

const HOSTILE_TOKEN = 'Bearer hostile-s3cret';

/** Paths in an outage (503). */
const down = new Set<string>();

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stats: Stats = {};
  const server = http().createServer((req, res) => {
    handle(req as NodeRequest, res, stats).catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
  }) as NodeServer;
  // The port vitest.config.mts named in MCP_SERVERS.
  const fixed = Number(nodeProcess().env.EDGEPLAN_TEST_HOSTILE_MCP_PORT ?? 0);
  const port = await new Promise<number>((resolve, reject) => {
    server.on('error', reject);
    server.listen(fixed, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('no TCP port'));
      else resolve(address.port);
    });
  });
  project.provide('hostileMcpPort', port);
  return () =>
    new Promise<void>((resolve) => {
      // `hang` leaves requests open on purpose.
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

const OK: Tool = { name: 'ok', description: 'Answers ok', inputSchema: { type: 'object' } };

function tool(name: string, inputSchema: Record<string, unknown> = { type: 'object' }): Tool {
  return {
    name,
    description: `the ${name.slice(0, 20)} tool`,
    inputSchema: inputSchema as Tool['inputSchema'],
  };
}

function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { n: schema } };
  return schema;
}

/** The tools a mode lists (page `page` of them for `many`), and the cursor of the next page. */
function listing(mode: string, page: number): { tools: Tool[]; nextCursor?: string } {
  switch (mode) {
    case 'many': {
      const tools = Array.from({ length: 100 }, (_, i) => tool(`t${page * 100 + i}`));
      return page < 49 ? { tools, nextCursor: String(page + 1) } : { tools };
    }
    case 'flood':
      return { tools: Array.from({ length: 100_000 }, (_, i) => tool(`t${i}`)) };
    case 'fat': {
      const properties = Object.fromEntries(
        Array.from({ length: 1000 }, (_, j) => [`p${j}`, { type: 'string' }]),
      );
      const tools = Array.from({ length: 100 }, (_, i) =>
        tool(`f${page * 100 + i}`, { type: 'object', properties }),
      );
      return page === 0 ? { tools, nextCursor: '1' } : { tools };
    }
    case 'bigList':
      return { tools: [OK, { ...tool('big'), description: 'x'.repeat(8 * 1024 * 1024) }] };
    case 'names':
      return {
        tools: [
          OK,
          tool('a.b'),
          tool('ünï'),
          tool('x'.repeat(10_000)),
          tool('http.request'),
          tool('dup'),
          tool('dup'),
        ],
      };
    case 'schemas':
      return {
        tools: [
          OK,
          tool('invalid', { type: 'object', properties: 5 }),
          tool('deep', { type: 'object', properties: { n: nested(1_000) } }),
          tool('loop', { type: 'object', $ref: '#/$defs/A', $defs: { A: { $ref: '#/$defs/A' } } }),
          tool('self', { type: 'object', properties: { child: { $ref: '#' } } }),
        ],
      };
    case 'mismatch':
    case 'untyped':
      return {
        tools: [
          OK,
          {
            ...tool('add'),
            outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
          },
        ],
      };
    case 'schemas-invalid':
      return { tools: [OK, tool('invalid', { type: 'object', properties: 5 })] };
    case 'schemas-longkey':
      return { tools: [OK, tool('longkey', { type: 'object', properties: { ['k'.repeat(100_000)]: 5 } })] };
    case 'schemas-deep':
      return { tools: [OK, tool('deep', { type: 'object', properties: { n: nested(1_000) } })] };
    case 'schemas-loop':
      return {
        tools: [OK, tool('loop', { type: 'object', $ref: '#/$defs/A', $defs: { A: { $ref: '#/$defs/A' } } })],
      };
    case 'schemas-self':
      return { tools: [OK, tool('self', { type: 'object', properties: { child: { $ref: '#' } } })] };
    case 'gone':
      return { tools: [OK] };
    case 'names-path':
      return {
        tools: [
          OK,
          tool('fs/read'),
          tool('../../etc/passwd'),
          tool('a.b.c'),
          tool('y'.repeat(128)),
          tool('z'.repeat(129)),
          tool(''),
        ],
      };
    default:
      return { tools: [OK, tool('act')] };
  }
}

function called(mode: string, name: string, authorization: string | undefined): CallToolResult {
  if (name === 'ok') return { content: [{ type: 'text', text: 'ok' }] };
  switch (mode) {
    case 'huge':
      return { content: [{ type: 'text', text: 'y'.repeat(40 * 1024 * 1024) }] };
    case 'content':
      return {
        content: [
          { type: 'text', text: 'see attached' },
          { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
          { type: 'resource_link', uri: 'file:///etc/passwd', name: 'passwd' },
          {
            type: 'resource',
            resource: { uri: 'mem://blob', blob: 'AAECAw==', mimeType: 'application/octet-stream' },
          },
        ],
      };
    case 'mismatch':
      return { content: [{ type: 'text', text: '{"sum": 3}' }], structuredContent: { sum: 'many' } };
    case 'leak':
      return { isError: true, content: [{ type: 'text', text: `refused for ${authorization ?? 'nobody'}` }] };
    default:
      return { content: [{ type: 'text', text: `${name} in ${mode}` }] };
  }
}

/** The MCP server for one request of `mode` (stateless). */
function mcpServer(mode: string, authorization: string | undefined): Server {
  const server = new Server({ name: 'hostile', version: '6.6.6' }, { capabilities: { tools: {} } });
  server.setRequestHandler(CallToolRequestSchema, (req) => called(mode, req.params.name, authorization));
  return server;
}

async function handle(req: NodeRequest, res: ServerResponse, stats: Stats): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const text = await readText(req);
  const empty = { list_calls: 0, call_calls: 0, requests: 0 };
  if (answerHarness(url, res, { prefix: 'h', stats, empty, down })) return;
  const mode = url.pathname.split('/')[2] ?? '';
  const s = (stats[url.pathname] ??= { list_calls: 0, call_calls: 0, requests: 0 });
  s.requests++;
  if (mode === 'redirect') {
    res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' });
    res.end();
    return;
  }
  const authorization = typeof req.headers.authorization === 'string' ? req.headers.authorization : undefined;
  if (mode === 'leak' && authorization !== HOSTILE_TOKEN) {
    res.writeHead(401, { 'content-type': 'text/plain' });
    res.end(`bad credentials: ${authorization ?? 'none'}`);
    return;
  }
  if (mode === 'sse') {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: endpoint\ndata: ${url.pathname}/messages?sessionId=1\n\n`);
    } else {
      res.writeHead(405, { 'content-type': 'text/plain' });
      res.end('this server speaks the HTTP+SSE transport: GET the event stream first');
    }
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { 'content-type': 'text/plain' });
    res.end('stateless: POST only');
    return;
  }
  const body: unknown = JSON.parse(text);
  const messages = Array.isArray(body) ? body : [body];
  const methods = messages.map((m) => (m as { method?: unknown }).method);
  if (methods.includes('tools/list')) {
    s.list_calls++;
    // Answered here, not by the SDK's server: it is the listing a hostile server sends, unchecked.
    const { id, params } = messages[0] as { id: unknown; params?: { cursor?: string } };
    if (mode === 'slow') await new Promise((resolve) => setTimeout(resolve, 300));
    const answer = JSON.stringify({ jsonrpc: '2.0', id, result: listing(mode, Number(params?.cursor ?? 0)) });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(answer);
    return;
  }
  if (methods.includes('tools/call')) {
    s.call_calls++;
    const name = (messages[0] as { params?: { name?: unknown } }).params?.name;
    if (name !== 'ok' && mode === 'hang') return; // never answered
    if (name !== 'ok' && mode.startsWith('busy')) {
      const retryAfter =
        mode === 'busy-date'
          ? new Date(Date.now() + 90_000).toUTCString()
          : mode === 'busy-bogus'
            ? 'soon'
            : '120';
      res.writeHead(mode === 'busy-date' ? 503 : 429, {
        'retry-after': retryAfter,
        'content-type': 'text/plain',
      });
      res.end('busy: call again later');
      return;
    }
    if (name !== 'ok' && mode === 'drop') {
      req.socket.destroy();
      return;
    }
    if (name !== 'ok' && mode === 'nonjson') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('<html><body>502 Bad Gateway (from a proxy, with a 200)</body></html>');
      return;
    }
    if (name !== 'ok' && mode === 'nonjson-sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('event: message\ndata: this is not JSON\n\n');
      return;
    }
    if (name !== 'ok' && mode === 'untyped') {
      // A tool that declares an outputSchema answering text only.
      const { id } = messages[0] as { id: unknown };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: '3' }] } }));
      return;
    }
    if (name !== 'ok' && mode === 'gone') {
      // Refused as most servers refuse a tool they do not have: a JSON-RPC error.
      const { id } = messages[0] as { id: unknown };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          error: { code: -32602, message: `Unknown tool: ${String(name)}` },
        }),
      );
      return;
    }
    if (name !== 'ok' && mode === 'wrong-id') {
      // The answer to a request nobody sent: no answer to the one that was.
      const { id } = messages[0] as { id: number };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ jsonrpc: '2.0', id: id + 1000, result: { content: [{ type: 'text', text: 'x' }] } }),
      );
      return;
    }
    if (name !== 'ok' && (mode === 'error-32000' || mode === 'error-32001')) {
      // A server's own error in the implementation-defined range (-32000 is many servers' "server
      // error"), which the SDK also uses for a closed connection and a timeout of its own.
      const { id } = messages[0] as { id: unknown };
      const code = mode === 'error-32000' ? -32000 : -32001;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message: 'the tool broke' } }));
      return;
    }
    if (name !== 'ok' && mode === 'malformed') {
      // Answered here: the SDK's server would refuse to send it.
      const { id } = messages[0] as { id: unknown };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'weird', stuff: 1 }] } }));
      return;
    }
  }
  await answerMcp(mcpServer(mode, authorization), req, res, url, text, body);
}
