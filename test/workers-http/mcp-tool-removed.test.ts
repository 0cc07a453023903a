/**
 * A tool its MCP server stops listing between a plan's validation and its run (a deploy of the server,
 * a feature flag): the step fails as `mcp_tool_not_found` saying so, the listing is refreshed so a
 * revised plan no longer offers the tool, and once the tool is back the run's retry completes. Against
 * the real servers of test/workers-http/mcp-stateful-server.ts (the SDK's McpServer, which answers
 * `Tool x not found` as an isError result) and mcp-hostile-server.ts (`gone`: a JSON-RPC error).
 */
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { executeTool } from '../../src/executor/run-step';
import type { AnyTool } from '../../src/executor/registry';
import { mcpTool, mcpTools } from '../../src/mcp/tools';
import { api, startRun, waitForRun, type Json } from '../workers/helpers';

afterEach(() => vi.restoreAllMocks());

const stateful = `http://127.0.0.1:${inject('statefulMcpPort')}`;
const hostile = `http://127.0.0.1:${inject('hostileMcpPort')}`;

async function stats(path: string): Promise<{ list_calls: number; call_calls: number }> {
  return (await fetch(`${stateful}/s-stats?path=${path}`)).json();
}

const setTool = (path: string, op: 'remove' | 'restore', name: string) =>
  fetch(`${stateful}/s-tools?path=${path}&${op}=${name}`, { method: 'POST' });

function byName(tools: AnyTool[], name: string): AnyTool {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} in ${tools.map((t) => t.name).join(', ')}`);
  return tool;
}

const ctx = {
  runId: 'run_removed',
  stepId: 's1',
  attempt: 1,
  idempotencyKey: 'run_removed:s1',
  env: {},
  timeoutMs: 30_000,
};

describe('a tool its MCP server no longer lists', () => {
  it('fails the step as mcp_tool_not_found naming server and tool, and stores the fresh listing in KV', async () => {
    const path = '/s/removed';
    const server = { name: 's', url: `${stateful}${path}` };
    const add = byName(await mcpTools([server], { env: {}, kv: env.KV }), 'mcp.s.add');
    await setTool(path, 'remove', 'add');
    const out = await executeTool(add, { a: 1, b: 2 }, ctx);
    expect(out).toMatchObject({
      success: false,
      error: {
        code: 'mcp_tool_not_found',
        retryable: false,
        message: expect.stringMatching(/^mcp\.s\.add: MCP server "s" no longer lists "add" \(it did when/),
      },
    });
    expect(await stats(path)).toMatchObject({ list_calls: 2, call_calls: 1 });
    // KV holds the listing without it: the next registry, here or in another isolate, has no mcp.s.add.
    const names = (await mcpTools([server], { env: {}, kv: env.KV })).map((t) => t.name);
    expect(names).toEqual(['mcp.s.ok', 'mcp.s.lookup']);
    expect((await stats(path)).list_calls).toBe(2);
  });

  it('recognises the JSON-RPC "Unknown tool" refusal most servers send', async () => {
    const server = { name: 'h', url: `${hostile}/h/gone/a` };
    // Listed when the plan was checked; the server has only `ok` now.
    const listed = { name: 'act', inputSchema: { type: 'object' } };
    const act = mcpTool(server, { server: 'h', version: '1', tools: [listed] }, listed, { env: {} });
    const out = await executeTool(act, {}, ctx);
    expect(out).toMatchObject({ success: false, error: { code: 'mcp_tool_not_found', retryable: false } });
  });

  it('keeps a tool’s own "not found" as mcp_tool_error, with the server’s words, when the tool is still listed', async () => {
    const path = '/s/own-not-found';
    const lookup = byName(
      await mcpTools([{ name: 's', url: `${stateful}${path}` }], { env: {} }),
      'mcp.s.lookup',
    );
    const out = await executeTool(lookup, { id: 42 }, ctx);
    expect(out).toMatchObject({
      success: false,
      error: { code: 'mcp_tool_error', message: 'mcp.s.lookup: user 42 not found' },
    });
  });
});

describe('a run whose MCP tool goes away after its plan was validated', () => {
  it('fails the step clearly, a revised plan is told the tool is gone, and the retry completes once it is back', async () => {
    const plan = {
      goal: 'g',
      steps: [{ id: 'sum', action: 'mcp.stateful.add', parameters: { a: 2, b: 5 } }],
    };
    expect((await api('POST', '/v1/plans/validate', { plan })).body).toMatchObject({ valid: true });
    await setTool('/s/e2e', 'remove', 'add');
    const warnings = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const runId = await startRun(plan, { retry_failed_steps: 2 });
      const run = await waitForRun(runId);
      // docs/operating.md, mcp_tool_gone: the line names the run and step, to revise or retry.
      const gone = warnings.mock.calls
        .map((args) => JSON.parse(String(args[0])) as Json)
        .filter((l) => l.event === 'mcp_tool_gone');
      expect(gone).toEqual([
        {
          level: 'warn',
          event: 'mcp_tool_gone',
          message: `run ${runId}: step "sum" called "add", which MCP server "stateful" no longer lists; its listing is refreshed`,
          server: 'stateful',
          run_id: runId,
          step_id: 'sum',
          attempt: 1,
          code: 'mcp_tool_not_found',
        },
      ]);
      expect(run).toMatchObject({
        status: 'failed',
        error: { message: expect.stringContaining('MCP server "stateful" no longer lists "add"') },
      });
      // Not retried: the server said the tool is not there.
      expect((await stats('/s/e2e')).call_calls).toBe(1);
      // What a revision (or a new plan) is checked against has the tool no more.
      const again = await api('POST', '/v1/plans/validate', { plan });
      expect(again.body.errors).toEqual([expect.objectContaining({ code: 'unknown_tool', step_id: 'sum' })]);
      await setTool('/s/e2e', 'restore', 'add');
      expect((await api('GET', '/v1/tools?refresh=true')).status).toBe(200);
      expect((await api('POST', `/v1/runs/${runId}/retry`, {})).status).toBe(200);
      expect(await waitForRun(runId)).toMatchObject({
        status: 'completed',
        step_results: { sum: { sum: 7 } },
      });
    } finally {
      await setTool('/s/e2e', 'restore', 'add');
    }
  });
});
