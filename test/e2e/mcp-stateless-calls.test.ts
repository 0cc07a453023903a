/**
 * MCP tool calls to a server that keeps no sessions, end to end: `wrangler dev` started here runs a
 * chain of MCP steps against the SDK's stateless Streamable HTTP server on loopback (in this process,
 * counting the requests it gets), so the calls go out through the deployed path — the run's object,
 * the runtime's own fetch. The steps' calls cost one handshake between them, not one each.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
// @ts-expect-error -- a plain .mjs script without declarations
import { startDevServer } from '../../scripts/dev-server.mjs';
// @ts-expect-error -- a plain .mjs script without declarations
import { serveMcp } from '../../scripts/mcp-loopback.mjs';
import { serverApi } from './server-api';
import { pinnedPort } from './pinned-port';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The requests the MCP server got: `GET`, or the JSON-RPC method of a POST. */
const seen: string[] = [];
let mcp: { address(): { port: number }; close(): void };
let server: { base: string; stop(): Promise<void> };
const { call, get } = serverApi(() => server.base);

beforeAll(async () => {
  mcp = (await serveMcp(
    () => {
      const s = new McpServer({ name: 'stateless', version: '1.0.0' });
      s.registerTool(
        'echo',
        { description: 'Returns its input', inputSchema: { i: z.number() }, outputSchema: { i: z.number() } },
        ({ i }) => ({ content: [{ type: 'text', text: String(i) }], structuredContent: { i } }),
      );
      return s;
    },
    {
      onRequest: (method: string, body: string) =>
        seen.push(method === 'POST' ? String((JSON.parse(body) as { method?: unknown }).method) : method),
    },
  )) as typeof mcp;
  const servers = [{ name: 'sl', url: `http://127.0.0.1:${mcp.address().port}/mcp` }];
  // EDGEPLAN_E2E_PORT pins the port (a machine that gives each runner a range); else a free one.
  const port = pinnedPort();
  server = (await startDevServer({
    name: 'mcp-stateless-calls',
    port,
    extraArgs: ['--var', `MCP_SERVERS:${JSON.stringify(servers)}`],
  })) as typeof server;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  mcp?.close();
});

async function untilEnded(runId: string): Promise<Json> {
  for (;;) {
    const run = await get(`/v1/runs/${runId}`);
    if (['completed', 'failed', 'aborted', 'cancelled'].includes(run.status as string)) return run;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const count = (method: string) => seen.filter((m) => m === method).length;

describe('MCP calls to a stateless server through wrangler dev', { timeout: 60_000 }, () => {
  it('runs a chain of five MCP steps with one handshake between them, each step one tools/call', async () => {
    const plan = {
      goal: 'a chain of stateless MCP calls',
      steps: Array.from({ length: 5 }, (_, i) => ({
        id: `c${i}`,
        action: 'mcp.sl.echo',
        parameters: { i },
        dependencies: i ? [`c${i - 1}`] : [],
      })),
    };
    const created = await call('POST', '/v1/runs', { plan });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await untilEnded(created.body.run_id as string);
    expect(run.status).toBe('completed');
    // Each listing is a handshake and a tools/list; what handshakes remain were the calls'.
    expect({ calls: count('tools/call'), callHandshakes: count('initialize') - count('tools/list') }).toEqual(
      {
        calls: 5,
        callHandshakes: 1,
      },
    );
  });
});
