/**
 * Many listings of one MCP server at once on a cold isolate — steps, plan validations and run objects
 * starting together — share one `tools/list` (src/mcp/listing-flight.ts). Counted on the real MCP server
 * (test/workers-http/mcp-hostile-server.ts, whose `slow` mode answers `tools/list` after 300 ms, so the
 * listings overlap), each test on a path of its own.
 */
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { inject } from 'vitest';
import { describe, expect, it } from 'vitest';
import { listMcpTools } from '../../src/mcp/listing';
import { mcpTools } from '../../src/mcp/tools';
import { loadMcpTools } from '../../src/mcp/worker-tools';

const base = `http://127.0.0.1:${inject('hostileMcpPort')}`;

async function stats(path: string): Promise<{ list_calls: number }> {
  return (await fetch(`${base}/h-stats?path=${path}`)).json();
}

describe('concurrent cold listings of one MCP server', () => {
  it('list the server once for 20 registries built at once, and each gets its tools', async () => {
    const server = { name: 'f', url: `${base}/h/slow/many-registries` };
    const all = await Promise.all(Array.from({ length: 20 }, () => mcpTools([server], { env: {} })));
    expect(all.map((tools) => tools.map((t) => t.name).join())).toEqual(Array(20).fill('mcp.f.ok,mcp.f.act'));
    expect((await stats('/h/slow/many-registries')).list_calls).toBe(1);
  });

  it('list once for 12 Worker entry points loading MCP_SERVERS at once, with KV still empty', async () => {
    const mcpEnv = {
      MCP_SERVERS: JSON.stringify([{ name: 'f', url: `${base}/h/slow/entry-points` }]),
      KV: env.KV,
    };
    const loads = await Promise.all(Array.from({ length: 12 }, () => loadMcpTools(mcpEnv)));
    expect(loads.every((tools) => tools.some((t) => t.name === 'mcp.f.act'))).toBe(true);
    expect((await stats('/h/slow/entry-points')).list_calls).toBe(1);
  });

  it('list once for 8 objects listing at once, each in its own request context', async () => {
    const server = { name: 'f', url: `${base}/h/slow/objects` };
    const names = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        runInDurableObject(env.COUNTERS.get(env.COUNTERS.idFromName(`flight-${i}`)), async () =>
          (await listMcpTools(server, { headers: {} })).tools.map((t) => t.name).join(),
        ),
      ),
    );
    expect(names).toEqual(Array(8).fill('ok,act'));
    expect((await stats('/h/slow/objects')).list_calls).toBe(1);
  });

  it('does not share a listing between two credentials for the same server', async () => {
    const url = `${base}/h/slow/credentials`;
    await Promise.all([
      listMcpTools({ name: 'f', url }, { headers: { Authorization: 'Bearer one' } }),
      listMcpTools({ name: 'f', url }, { headers: { Authorization: 'Bearer two' } }),
    ]);
    expect((await stats('/h/slow/credentials')).list_calls).toBe(2);
  });

  it('lists again once the shared listing has settled: a failure is not kept', async () => {
    const path = '/h/slow/after-outage';
    const server = { name: 'f', url: `${base}${path}` };
    await fetch(`${base}/h-down?path=${path}&down=true`, { method: 'POST' });
    const failed = await Promise.allSettled([1, 2, 3].map(() => listMcpTools(server, { headers: {} })));
    await fetch(`${base}/h-down?path=${path}&down=false`, { method: 'POST' });
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect((await listMcpTools(server, { headers: {} })).tools.map((t) => t.name)).toEqual(['ok', 'act']);
    expect((await stats(path)).list_calls).toBe(1);
  });

  it('lets a waiter give up at its own deadline while the listing it joined goes on', async () => {
    const server = { name: 'f', url: `${base}/h/slow/deadline` };
    const leader = listMcpTools(server, { headers: {} });
    const waiter = listMcpTools(server, { headers: {}, signal: AbortSignal.abort(new Error('gave up')) });
    await expect(waiter).rejects.toThrow('gave up');
    expect((await leader).tools).toHaveLength(2);
  });
});
