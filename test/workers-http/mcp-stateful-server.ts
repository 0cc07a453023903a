/**
 * Vitest globalSetup for the `workers-http` project: an MCP server that keeps sessions, as most teams'
 * servers built on the SDK do (its `McpServer` over the Web-standard Streamable HTTP transport with a
 * session id per `initialize`, JSON responses, on 127.0.0.1 in Node) — so edgeplan is tested against a
 * server that restarts and forgets its sessions, and tools that go away between a plan's validation
 * and its run. Its port reaches the tests as `inject('statefulMcpPort')` (the port vitest.config.mts
 * chose for `MCP_SERVERS`, in `EDGEPLAN_TEST_STATEFUL_MCP_PORT`).
 *
 * Every path under `/s/` is a server of its own (its sessions, tools and counters): give each test one.
 * Tools: `add {a, b}` → structured `{sum}`; `ok {}` → text `ok`; `lookup {id}` → an `isError` result
 * `user <id> not found` (a tool's own "not found", while the tool is there).
 * - `POST /s-restart?path=&after_init=N&before_call=M&status=404|400` — the server restarts now (its
 *   sessions are forgotten), again right after each of the next N `initialize`s it answers, and just
 *   before each of the next M `tools/call`s reaches it. A request naming a
 *   forgotten session is answered `status`: 404 as the spec says (the default), or 400 "No valid
 *   session ID provided" as the SDK's own example servers do.
 * - `POST /s-tools?path=&remove=<tool>` / `&restore=<tool>` — the tool is no longer listed or callable
 *   (a call to it is the SDK's `Tool … not found`), or is back.
 * - `POST /s-hang?path=&list=true|false` — `tools/list` is never answered (the socket stays open).
 * - `GET /s-stats?path=` → `{initialize, list_calls, call_calls, deletes, lost, no_session, open}`:
 *   `lost` counts requests refused for a forgotten session (a DELETE ending one aside), `no_session`
 *   those refused for naming none (400, not an `initialize`), `open` the sessions the server holds now.
 * - `hold {tag}` (a tool, listed only on paths under `/s/hold`): its calls with a held tag are not answered until released; every call is
 *   recorded with the `_meta` edgeplan sent and its session. `POST /s-hold?path=&tag=` holds the tag's
 *   next calls, `POST /s-release?path=&tag=` answers the held ones and holds no more;
 *   `GET /s-calls?path=&tag=` → `[{key, attempt, session, answered}]` (so a test can cut a call short
 *   while the server has it, and see what was called again).
 */
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { TestProject } from 'vitest/node';
import { z } from 'zod';
import { http, nodeProcess, type IncomingMessage, type ServerResponse } from '../../scripts/eval/node-api';
import { readText } from './mcp-harness-routes';

declare module 'vitest' {
  export interface ProvidedContext {
    statefulMcpPort: number;
  }
}

/** One call of the `hold` tool, as the server saw it. */
type HoldCall = { key: unknown; attempt: unknown; session: string | undefined; answered: boolean };

type World = {
  sessions: Map<string, WebStandardStreamableHTTPServerTransport>;
  /** `hold`: tags whose calls wait, each with the releases of the calls waiting. */
  /** Whether this path's server offers `hold`. */
  holds: boolean;
  held: Map<string, (() => void)[]>;
  holdCalls: Map<string, HoldCall[]>;
  removed: Set<string>;
  restartsAfterInit: number;
  restartsBeforeCall: number;
  lostStatus: 404 | 400;
  hangList: boolean;
  stats: {
    initialize: number;
    list_calls: number;
    call_calls: number;
    deletes: number;
    lost: number;
    no_session: number;
  };
};

type NodeServer = ReturnType<ReturnType<typeof http>['createServer']> & { closeAllConnections(): void };

const worlds = new Map<string, World>();

function world(path: string): World {
  let w = worlds.get(path);
  if (!w) {
    w = {
      sessions: new Map(),
      holds: path.startsWith('/s/hold'),
      held: new Map(),
      holdCalls: new Map(),
      removed: new Set(),
      restartsAfterInit: 0,
      restartsBeforeCall: 0,
      lostStatus: 404,
      hangList: false,
      stats: { initialize: 0, list_calls: 0, call_calls: 0, deletes: 0, lost: 0, no_session: 0 },
    };
    worlds.set(path, w);
  }
  return w;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = http().createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
  }) as NodeServer;
  const fixed = Number(nodeProcess().env.EDGEPLAN_TEST_STATEFUL_MCP_PORT ?? 0);
  const port = await new Promise<number>((resolve, reject) => {
    server.on('error', reject);
    server.listen(fixed, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('no TCP port'));
      else resolve(address.port);
    });
  });
  project.provide('statefulMcpPort', port);
  return () =>
    new Promise<void>((resolve) => {
      // `hang` leaves requests open on purpose.
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/** The MCP server of one session: the world's tools as they are when the session starts. */
function mcpServer(w: World): McpServer {
  const server = new McpServer({ name: 'stateful', version: '2.0.0' });
  if (!w.removed.has('add'))
    server.registerTool(
      'add',
      {
        description: 'Adds two numbers',
        inputSchema: { a: z.number(), b: z.number() },
        outputSchema: { sum: z.number() },
      },
      ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
    );
  if (!w.removed.has('ok'))
    server.registerTool('ok', { description: 'Answers ok', inputSchema: {} }, () => ({
      content: [{ type: 'text', text: 'ok' }],
    }));
  if (w.holds) registerHold(server, w);
  if (!w.removed.has('lookup'))
    server.registerTool(
      'lookup',
      { description: 'Finds a user', inputSchema: { id: z.number() } },
      ({ id }) => ({
        isError: true,
        content: [{ type: 'text', text: `user ${id} not found` }],
      }),
    );
  return server;
}

/** The `hold` tool (see the header). */
function registerHold(server: McpServer, w: World): void {
  server.registerTool(
    'hold',
    {
      description: 'Answers when released',
      inputSchema: { tag: z.string() },
      outputSchema: { tag: z.string(), call: z.number() },
    },
    async ({ tag }, extra) => {
      const call: HoldCall = {
        key: extra._meta?.['edgeplan/idempotency_key'],
        attempt: extra._meta?.['edgeplan/attempt'],
        session: extra.sessionId,
        answered: false,
      };
      w.holdCalls.set(tag, [...(w.holdCalls.get(tag) ?? []), call]);
      const waiting = w.held.get(tag);
      if (waiting) await new Promise<void>((resolve) => waiting.push(resolve));
      call.answered = true;
      const n = w.holdCalls.get(tag)!.indexOf(call) + 1;
      return { content: [{ type: 'text', text: `call ${n}` }], structuredContent: { tag, call: n } };
    },
  );
}

function forget(w: World): void {
  const transports = [...w.sessions.values()];
  w.sessions.clear();
  for (const t of transports) void t.close();
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const text = await readText(req);
  const q = url.searchParams;
  if (url.pathname === '/s-stats') {
    const w = world(q.get('path') ?? '');
    json(res, 200, { ...w.stats, open: w.sessions.size });
    return;
  }
  if (url.pathname === '/s-restart') {
    const w = world(q.get('path') ?? '');
    forget(w);
    w.restartsAfterInit = Number(q.get('after_init') ?? 0);
    w.restartsBeforeCall = Number(q.get('before_call') ?? 0);
    w.lostStatus = q.get('status') === '400' ? 400 : 404;
    res.writeHead(204, {});
    res.end();
    return;
  }
  if (url.pathname === '/s-tools') {
    const w = world(q.get('path') ?? '');
    const remove = q.get('remove');
    const restore = q.get('restore');
    if (remove) w.removed.add(remove);
    if (restore) w.removed.delete(restore);
    res.writeHead(204, {});
    res.end();
    return;
  }
  if (url.pathname === '/s-hold' || url.pathname === '/s-release') {
    const w = world(q.get('path') ?? '');
    const tag = q.get('tag') ?? '';
    const waiting = w.held.get(tag) ?? [];
    if (url.pathname === '/s-hold') w.held.set(tag, waiting);
    else {
      w.held.delete(tag);
      for (const release of waiting) release();
    }
    res.writeHead(204, {});
    res.end();
    return;
  }
  if (url.pathname === '/s-calls') {
    const w = world(q.get('path') ?? '');
    json(res, 200, w.holdCalls.get(q.get('tag') ?? '') ?? []);
    return;
  }
  if (url.pathname === '/s-hang') {
    world(q.get('path') ?? '').hangList = q.get('list') === 'true';
    res.writeHead(204, {});
    res.end();
    return;
  }
  if (!url.pathname.startsWith('/s/')) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not here');
    return;
  }
  const w = world(url.pathname);
  if (req.method === 'GET') {
    // No standalone stream: the spec's answer for a server that offers none.
    res.writeHead(405, { 'content-type': 'text/plain' });
    res.end('no standalone stream');
    return;
  }
  const sessionId = req.headers['mcp-session-id'];
  const body: unknown = text ? JSON.parse(text) : undefined;
  const methods = (Array.isArray(body) ? body : [body]).map((m) => (m as { method?: unknown })?.method);
  if (methods.includes('tools/call') && w.restartsBeforeCall > 0) {
    w.restartsBeforeCall--;
    forget(w);
  }
  let transport: WebStandardStreamableHTTPServerTransport | undefined;
  if (typeof sessionId === 'string') {
    transport = w.sessions.get(sessionId);
    if (!transport) {
      // The DELETE ending a forgotten session is not counted: only requests that went unrun.
      if (req.method !== 'DELETE') w.stats.lost++;
      // 404 is the spec's; the SDK's example servers answer 400 for a session they do not know.
      const message =
        w.lostStatus === 404 ? 'Session not found' : 'Bad Request: No valid session ID provided';
      json(res, w.lostStatus, { jsonrpc: '2.0', error: { code: -32001, message }, id: null });
      return;
    }
  } else if (methods.includes('initialize')) {
    w.stats.initialize++;
    const created = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => void w.sessions.set(id, created),
    });
    await mcpServer(w).connect(created);
    transport = created;
  } else {
    w.stats.no_session++;
    json(res, 400, { jsonrpc: '2.0', error: { code: -32000, message: 'No session id' }, id: null });
    return;
  }
  if (req.method === 'DELETE') {
    w.stats.deletes++;
    if (typeof sessionId === 'string') w.sessions.delete(sessionId);
  }
  if (methods.includes('tools/list')) {
    w.stats.list_calls++;
    if (w.hangList) return; // never answered
  }
  if (methods.includes('tools/call')) w.stats.call_calls++;
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers))
    if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  const request = new Request(url, {
    method: req.method ?? 'POST',
    headers,
    ...(req.method === 'POST' ? { body: text } : {}),
  });
  const response = await transport.handleRequest(request, body === undefined ? {} : { parsedBody: body });
  const out: Record<string, string> = {};
  response.headers.forEach((value, key) => (out[key] = value));
  res.writeHead(response.status, out);
  res.end(await response.text());
  if (methods.includes('initialize') && w.restartsAfterInit > 0) {
    // The server restarts right after it opened the session: the client's next request names a
    // session it no longer has.
    w.restartsAfterInit--;
    forget(w);
  }
}
