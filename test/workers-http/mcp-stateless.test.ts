/**
 * MCP servers that keep no sessions (stateless Streamable HTTP: the SDK's transport without a session
 * id generator, as Cloudflare's `createMcpHandler` runs it), reached from the Workers runtime with its
 * own fetch: the SDK's server in Node on 127.0.0.1 (test/workers-http/mcp-server.ts), which counts the
 * handshakes and calls each path has had. Calls go through `executeTool` (what a step runs), each
 * test on a server path of its own.
 */
import { inject } from 'vitest';
import { describe, expect, it, vi } from 'vitest';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { executeTool } from '../../src/executor/run-step';
import type { AnyTool } from '../../src/executor/registry';
import { listMcpTools } from '../../src/mcp/listing';
import { statelessServer } from '../../src/mcp/stateless-servers';
import { mcpTools } from '../../src/mcp/tools';
import type { Handshakes } from './mcp-server';

const mcpBase = `http://127.0.0.1:${inject('mcpPort')}`;
const hostileBase = `http://127.0.0.1:${inject('hostileMcpPort')}`;
const statefulBase = `http://127.0.0.1:${inject('statefulMcpPort')}`;

async function handshakes(path: string): Promise<Handshakes> {
  return (await fetch(`${mcpBase}/mcp-handshakes?path=${path}`)).json();
}

/** What the path's server counted since `before`. */
async function since(path: string, before: Handshakes): Promise<Omit<Handshakes, 'call_versions'>> {
  const now = await handshakes(path);
  return {
    requests: now.requests - before.requests,
    initialize: now.initialize - before.initialize,
    initialized: now.initialized - before.initialized,
    call_calls: now.call_calls - before.call_calls,
    refused: now.refused - before.refused,
  };
}

async function needsInit(path: string, refuse: 'off' | 'http' | 'rpc'): Promise<void> {
  await fetch(`${mcpBase}/mcp-needs-init?path=${path}&refuse=${refuse}`, { method: 'POST' });
}

async function add(base: string, path: string, name = 'add'): Promise<AnyTool> {
  const tools = await mcpTools([{ name: 'm', url: `${base}${path}` }], { env: {} });
  const found = tools.find((t) => t.name === `mcp.m.${name}`);
  if (!found) throw new Error(`no mcp.m.${name} in ${tools.map((t) => t.name).join(', ')}`);
  return found;
}

const ctx = (over: Record<string, unknown> = {}) => ({
  runId: 'run_stateless',
  stepId: 's1',
  attempt: 1,
  idempotencyKey: 'run_stateless:s1',
  env: {},
  timeoutMs: 30_000,
  ...over,
});

/** `n` calls of `tool`, one after another, each checked: `a + 1` for a = 1…n. */
async function callsAdd(tool: AnyTool, n: number): Promise<void> {
  for (let a = 1; a <= n; a++)
    expect(await executeTool(tool, { a, b: 1 }, ctx())).toMatchObject({ output: { sum: a + 1 } });
}

/** One call with its handshake: initialize, notifications/initialized, the GET of a standalone stream (405), tools/call. */
const HANDSHAKE_AND_CALL = { requests: 4, initialize: 1, initialized: 1, call_calls: 1, refused: 0 };

describe('an MCP server that keeps no sessions', () => {
  it('costs one handshake for three calls: then each call is one request, tools/call with the negotiated MCP-Protocol-Version', async () => {
    const path = '/mcp/stateless-three';
    const tool = await add(mcpBase, path);
    let before = await handshakes(path);
    await callsAdd(tool, 1);
    expect(await since(path, before)).toEqual(HANDSHAKE_AND_CALL);
    before = await handshakes(path);
    await callsAdd(tool, 2);
    expect(await since(path, before)).toEqual({
      requests: 2,
      initialize: 0,
      initialized: 0,
      call_calls: 2,
      refused: 0,
    });
    expect((await handshakes(path)).call_versions.slice(-3)).toEqual(Array(3).fill(LATEST_PROTOCOL_VERSION));
  });

  for (const refuse of ['http', 'rpc'] as const)
    it(`runs each call exactly once on a server that wants initialize before every call (refusing with ${refuse === 'http' ? 'a 400' : 'a JSON-RPC error'}), refused once, then remembered`, async () => {
      const path = `/mcp/needs-init-${refuse}`;
      await needsInit(path, refuse);
      const tool = await add(mcpBase, path);
      const before = await handshakes(path);
      // The first call's handshake is answered without a session id; the second call, sent without
      // one, is refused and made again after a handshake; from then on every call has its handshake
      // (4 requests each, and the refused one).
      await callsAdd(tool, 4);
      expect(await since(path, before)).toEqual({
        requests: 17,
        initialize: 4,
        initialized: 4,
        call_calls: 4,
        refused: 1,
      });
    });

  it('makes the handshake, and runs the call once, when the SDK cannot connect without one (an install taking a later SDK, built otherwise)', async () => {
    const path = '/mcp/stateless-sdk-changed';
    const tool = await add(mcpBase, path);
    await callsAdd(tool, 1); // the handshake, answered without a session: the next call is bare
    // The bare connect fails as a changed SDK's would; the handshake's (Client.connect calls it too) works.
    const connect = vi.spyOn(Protocol.prototype, 'connect').mockImplementationOnce(() => {
      throw new TypeError('this._transport.start is not a function');
    });
    const before = await handshakes(path);
    try {
      expect(await executeTool(tool, { a: 41, b: 1 }, ctx())).toMatchObject({ output: { sum: 42 } });
      expect(connect).toHaveBeenCalledTimes(2); // the bare connect, then the handshake's
    } finally {
      connect.mockRestore();
    }
    // Nothing reached the server from the failed bare connect; the call came once, after a handshake.
    expect(await since(path, before)).toEqual(HANDSHAKE_AND_CALL);
  });

  it('takes a server’s change either way: bare calls refused after a redeploy fall back, and a refreshed listing tries bare calls again', async () => {
    const path = '/mcp/stateless-redeployed';
    const tool = await add(mcpBase, path);
    let before = await handshakes(path);
    await callsAdd(tool, 2);
    expect(await since(path, before)).toMatchObject({ initialize: 1, call_calls: 2, refused: 0 });
    await needsInit(path, 'http');
    before = await handshakes(path);
    await callsAdd(tool, 2);
    expect(await since(path, before)).toMatchObject({
      initialize: 2,
      initialized: 2,
      call_calls: 2,
      refused: 1,
    });
    // Stateless again, and its tools listed again (a refresh): what was remembered of it is dropped.
    await needsInit(path, 'off');
    await listMcpTools({ name: 'm', url: `${mcpBase}${path}` }, { headers: {}, refresh: true });
    before = await handshakes(path);
    await callsAdd(tool, 3);
    expect(await since(path, before)).toMatchObject({
      initialize: 1,
      initialized: 1,
      call_calls: 3,
      refused: 0,
    });
  });

  it('keeps calling without a handshake across a server restart: a stateless server forgets nothing', async () => {
    const path = '/mcp/stateless-restart';
    const tool = await add(mcpBase, path);
    const before = await handshakes(path);
    await callsAdd(tool, 1);
    await fetch(`${mcpBase}/mcp-restart`, { method: 'POST' });
    await callsAdd(tool, 2);
    expect(await since(path, before)).toEqual({
      requests: 6,
      initialize: 1,
      initialized: 1,
      call_calls: 3,
      refused: 0,
    });
  });

  it('does not make a bare call again when its connection drops: the server may have run it', async () => {
    const path = '/h/drop/stateless';
    const tool = await add(hostileBase, path, 'act');
    const requests = async () =>
      await (
        await fetch(`${hostileBase}/h-stats?path=${path}`)
      ).json<{ requests: number; call_calls: number }>();
    // The first call learns the server keeps no sessions (its handshake), the second is sent bare.
    for (const attempt of [1, 2])
      expect(await executeTool(tool, {}, ctx({ attempt }))).toMatchObject({
        success: false,
        error: { code: 'mcp_unreachable', retryable: true },
      });
    const before = await requests();
    expect(await executeTool(tool, {}, ctx({ attempt: 3 }))).toMatchObject({ success: false });
    const after = await requests();
    expect({
      requests: after.requests - before.requests,
      calls: after.call_calls - before.call_calls,
    }).toEqual({
      requests: 1,
      calls: 1,
    });
  });

  it('moves to a kept session when a server remembered as keeping none keeps sessions now (redeployed), running the call once', async () => {
    const path = '/s/was-stateless';
    const tool = await add(statefulBase, path);
    // As if its last handshake, before a redeploy, had given no session.
    const memory = statelessServer(`${statefulBase}${path}`, {});
    memory.keepsNoSessions(LATEST_PROTOCOL_VERSION);
    const stats = async () =>
      (await fetch(`${statefulBase}/s-stats?path=${path}`)).json<{
        initialize: number;
        call_calls: number;
        no_session: number;
      }>();
    const before = await stats();
    // The bare call is refused (400, no session id), the handshake gives a session, kept for the next.
    await callsAdd(tool, 3);
    const after = await stats();
    expect({
      initialize: after.initialize - before.initialize,
      calls: after.call_calls - before.call_calls,
      refused: after.no_session - before.no_session,
      bare: memory.bareVersion(),
    }).toEqual({ initialize: 1, calls: 3, refused: 1, bare: null });
  });
});
