/**
 * MCP servers that keep sessions, as a team's server built on the SDK does
 * (test/workers-http/mcp-stateful-server.ts): one that restarts and forgets the session edgeplan just
 * opened or kept, and the sessions edgeplan leaves behind (one per server per isolate, for calls). Calls go through `executeTool` (what a step runs)
 * with the runtime's own fetch, each test on a server path of its own.
 */
import { inject } from 'vitest';
import { describe, expect, it } from 'vitest';
import { executeTool } from '../../src/executor/run-step';
import type { AnyTool } from '../../src/executor/registry';
import { listMcpTools } from '../../src/mcp/listing';
import { mcpTools } from '../../src/mcp/tools';
import { loadMcpTools, mcpUnavailable } from '../../src/mcp/worker-tools';

const base = `http://127.0.0.1:${inject('statefulMcpPort')}`;

type Stats = {
  initialize: number;
  list_calls: number;
  call_calls: number;
  deletes: number;
  lost: number;
  open: number;
};

async function stats(path: string): Promise<Stats> {
  return (await fetch(`${base}/s-stats?path=${path}`)).json();
}

/**
 * The server restarts now, again right after each of its next `afterInit` initializations, and just
 * before each of the next `beforeCall` calls reaches it.
 */
async function restart(path: string, afterInit = 0, status: 404 | 400 = 404, beforeCall = 0): Promise<void> {
  const q = `path=${path}&after_init=${afterInit}&status=${status}&before_call=${beforeCall}`;
  await fetch(`${base}/s-restart?${q}`, { method: 'POST' });
}

async function tool(path: string, name: string): Promise<AnyTool> {
  const tools = await mcpTools([{ name: 's', url: `${base}${path}` }], { env: {} });
  const found = tools.find((t) => t.name === `mcp.s.${name}`);
  if (!found) throw new Error(`no mcp.s.${name} in ${tools.map((t) => t.name).join(', ')}`);
  return found;
}

const ctx = (over: Record<string, unknown> = {}) => ({
  runId: 'run_sessions',
  stepId: 's1',
  attempt: 1,
  idempotencyKey: 'run_sessions:s1',
  env: {},
  timeoutMs: 30_000,
  ...over,
});

describe('an MCP server that keeps sessions', () => {
  it('ends a listing’s session, and keeps one session for calls: three calls cost one handshake and no DELETE', async () => {
    const path = '/s/ended';
    const add = await tool(path, 'add');
    for (const a of [1, 2, 3])
      expect(await executeTool(add, { a, b: 1 }, ctx())).toMatchObject({ output: { sum: a + 1 } });
    expect(await stats(path)).toMatchObject({
      initialize: 2,
      list_calls: 1,
      call_calls: 3,
      deletes: 1,
      open: 1,
    });
  });

  it('retires the kept session when the server is listed again: the next call opens a new one and ends the old', async () => {
    const path = '/s/retired';
    const server = { name: 's', url: `${base}${path}` };
    const add = await tool(path, 'add');
    expect(await executeTool(add, { a: 1, b: 1 }, ctx())).toMatchObject({ success: true });
    await listMcpTools(server, { headers: {}, refresh: true });
    expect(await executeTool(add, { a: 2, b: 2 }, ctx())).toMatchObject({ output: { sum: 4 } });
    // Two listings and two call sessions; each listing's ended, and the first call session too.
    expect(await stats(path)).toMatchObject({ initialize: 4, call_calls: 2, deletes: 3, open: 1 });
  });

  it('calls in a new session when the server forgot the kept one, not counting it as one the call opened', async () => {
    const path = '/s/kept-forgotten';
    const add = await tool(path, 'add');
    expect(await executeTool(add, { a: 1, b: 1 }, ctx())).toMatchObject({ success: true });
    // Forgets the kept session now, and the next one right after it opens: two lost, then it works.
    await restart(path, 1);
    expect(await executeTool(add, { a: 3, b: 3 }, ctx())).toMatchObject({
      success: true,
      output: { sum: 6 },
    });
    expect(await stats(path)).toMatchObject({ call_calls: 2, lost: 2, open: 1 });
    // Forgetting every session: the kept one, then the two this call opens → mcp_session_lost.
    await restart(path, 1000);
    const out = await executeTool(add, { a: 1, b: 1 }, ctx());
    expect(out).toMatchObject({ success: false, error: { code: 'mcp_session_lost', retryable: true } });
    expect((await stats(path)).call_calls).toBe(2);
  });

  it('calls again in a new session when the server restarted right after opening one, and runs the call once', async () => {
    const path = '/s/restart-404';
    const add = await tool(path, 'add');
    await restart(path, 1);
    const out = await executeTool(add, { a: 2, b: 3 }, ctx());
    expect(out).toMatchObject({ success: true, output: { sum: 5 } });
    // The call's session is kept for the next call.
    expect(await stats(path)).toMatchObject({ initialize: 3, call_calls: 1, lost: 1, open: 1 });
  });

  it('calls again in a new session when the server restarted between the handshake and the call', async () => {
    const path = '/s/restart-before-call';
    const add = await tool(path, 'add');
    await restart(path, 0, 404, 1);
    const out = await executeTool(add, { a: 4, b: 4 }, ctx());
    expect(out).toMatchObject({ success: true, output: { sum: 8 } });
    // The refused call was never run: one call ran, the one of the second session (kept).
    expect(await stats(path)).toMatchObject({ initialize: 3, call_calls: 1, lost: 1, open: 1 });
  });

  it('reads the 400 "No valid session ID provided" of the SDK’s example servers as a lost session too', async () => {
    const path = '/s/restart-400';
    const add = await tool(path, 'add');
    await restart(path, 1, 400);
    expect(await executeTool(add, { a: 1, b: 1 }, ctx())).toMatchObject({
      success: true,
      output: { sum: 2 },
    });
    expect((await stats(path)).lost).toBe(1);
  });

  it('fails as a retryable mcp_session_lost naming the server when every session is forgotten, without running the call', async () => {
    const path = '/s/restart-always';
    const add = await tool(path, 'add');
    await restart(path, 1000);
    const out = await executeTool(add, { a: 1, b: 1 }, ctx());
    expect(out).toMatchObject({
      success: false,
      error: {
        code: 'mcp_session_lost',
        retryable: true,
        message: expect.stringContaining('MCP server "s" forgot the session it had just opened, 2 times'),
      },
    });
    expect((await stats(path)).call_calls).toBe(0);
    // Back up: the step's retry goes through.
    await restart(path, 0);
    expect(await executeTool(add, { a: 1, b: 1 }, ctx({ attempt: 2 }))).toMatchObject({ success: true });
  });

  it('lists again in a new session when the server restarts while listing', async () => {
    const path = '/s/restart-listing';
    await restart(path, 1);
    const listing = await listMcpTools({ name: 's', url: `${base}${path}` }, { headers: {} });
    expect(listing.tools.map((t) => t.name)).toEqual(['add', 'ok', 'lookup']);
    expect(await stats(path)).toMatchObject({ initialize: 2, list_calls: 1, lost: 1 });
  });

  it('gives up on a listing the server never answers at the load’s deadline, naming the server, and keeps the others', async () => {
    const path = '/s/hang-list';
    await fetch(`${base}/s-hang?path=${path}&list=true`, { method: 'POST' });
    const mcpEnv = {
      MCP_SERVERS: JSON.stringify([
        { name: 'hung', url: `${base}${path}` },
        { name: 'fine', url: `${base}/s/hang-list-neighbour` },
      ]),
    };
    const tools = await loadMcpTools(mcpEnv);
    expect(tools.map((t) => t.name)).toEqual(['mcp.fine.add', 'mcp.fine.ok', 'mcp.fine.lookup']);
    expect(mcpUnavailable(mcpEnv)).toEqual([
      {
        server: 'hung',
        reason: expect.stringMatching(/^could not be listed: did not answer tools\/list within \d+ ms/),
      },
    ]);
    await fetch(`${base}/s-hang?path=${path}&list=false`, { method: 'POST' });
    // The load waits LIST_TIMEOUT_MS (5 s) for the hung server: more than vitest's default 5 s.
  }, 20_000);
});
