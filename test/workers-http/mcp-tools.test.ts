/**
 * MCP servers as tool sources, from the Workers runtime against a real MCP server (the SDK's, in Node
 * on 127.0.0.1: test/workers-http/mcp-server.ts). Calls go through `executeTool` (what a step runs)
 * and a whole in-process run (`PlanningPattern`), with the runtime's own fetch.
 */
import { env } from 'cloudflare:workers';
import { inject } from 'vitest';
import { describe, expect, it, vi } from 'vitest';
import { executeTool } from '../../src/executor/run-step';
import { ToolRegistry, type AnyTool } from '../../src/executor/registry';
import { PlanningPattern } from '../../src/index';
import { mcpServersFromEnv, type McpServerConfig } from '../../src/mcp/config';
import { listMcpTools, listingKey, MCP_LISTING_KV_MAX_BYTES } from '../../src/mcp/listing';
import { MCP_ATTEMPT_META, MCP_IDEMPOTENCY_META, mcpTools } from '../../src/mcp/tools';
import { validatePlan } from '../../src/plan/validate';

const mcpBase = `http://127.0.0.1:${inject('mcpPort')}`;
const closedUrl = `http://127.0.0.1:${inject('closedPort')}/mcp`;

/** A server at a path of its own (the test server counts requests per path). */
const server = (name: string, path: string, headers?: Record<string, string>): McpServerConfig => ({
  name,
  url: `${mcpBase}/mcp/${path}`,
  ...(headers ? { headers } : {}),
});

async function stats(path: string): Promise<{ list_calls: number; call_calls: number }> {
  const res = await fetch(`${mcpBase}/mcp-stats?path=/mcp/${path}`);
  return res.json();
}

function byName(tools: AnyTool[], name: string): AnyTool {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} in ${tools.map((t) => t.name).join(', ')}`);
  return tool;
}

/** `plan` validated against `tools`, with a fixed id scheme. */
const validateWith = (tools: ToolRegistry, plan: Parameters<typeof validatePlan>[0]) =>
  validatePlan(plan, {
    tools,
    clock: { now: () => new Date() },
    ids: { id: (p) => `${p}_1`, uuid: () => crypto.randomUUID() },
  });

const ctx = (over: Record<string, unknown> = {}) => ({
  runId: 'run_mcp',
  stepId: 's1',
  attempt: 1,
  idempotencyKey: 'run_mcp:s1',
  env: {},
  timeoutMs: 10_000,
  ...over,
});

describe('MCP servers as tool sources', () => {
  it('lists each server’s tools as mcp.<server>.<tool>, two servers never colliding', async () => {
    const tools = await mcpTools([server('math', 'list-a'), server('other', 'list-b')], { env: {} });
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual(
      ['add', 'book', 'echo_meta', 'fail', 'forecast', 'label', 'shout', 'whoami']
        .flatMap((t) => [`mcp.math.${t}`, `mcp.other.${t}`])
        .sort(),
    );
    const add = new ToolRegistry(tools).describe().find((d) => d.name === 'mcp.math.add');
    expect(add).toMatchObject({
      description: 'Adds two numbers',
      version: 'mcp:1.2.3',
      idempotent: true,
      input_schema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      output_schema: { type: 'object', properties: { sum: { type: 'number' } } },
    });
  });

  it('reads servers and ${SECRET} headers from MCP_SERVERS and the env', async () => {
    const servers = mcpServersFromEnv({
      MCP_SERVERS: JSON.stringify([server('auth', 'auth', { Authorization: 'Bearer ${MCP_TOKEN}' })]),
    });
    const tools = await mcpTools(servers, { env: { MCP_TOKEN: 's3cret' } });
    const out = await executeTool(byName(tools, 'mcp.auth.whoami'), {}, ctx());
    expect(out).toMatchObject({ success: true, output: { authorization: 'Bearer s3cret' } });
  });

  it('refuses parameters that fail the inputSchema before anything is sent', async () => {
    const tools = await mcpTools([server('math', 'invalid')], { env: {} });
    const out = await executeTool(byName(tools, 'mcp.math.add'), { a: 'one', b: 2 }, ctx());
    expect(out).toMatchObject({ success: false, error: { code: 'invalid_parameters' } });
    expect(await stats('invalid')).toEqual({ list_calls: 1, call_calls: 0 });
  });

  it('carries the step’s idempotency key and attempt in _meta', async () => {
    const tools = await mcpTools([server('math', 'meta')], { env: {} });
    const out = await executeTool(
      byName(tools, 'mcp.math.echo_meta'),
      {},
      ctx({ idempotencyKey: 'run_mcp:s1:v2', attempt: 3 }),
    );
    expect(out).toMatchObject({
      success: true,
      output: { meta: { [MCP_IDEMPOTENCY_META]: 'run_mcp:s1:v2', [MCP_ATTEMPT_META]: 3 } },
    });
  });

  it('fails the step with the server’s text on isError, not retried', async () => {
    const tools = await mcpTools([server('math', 'fail')], { env: {} });
    const out = await executeTool(byName(tools, 'mcp.math.fail'), {}, ctx());
    expect(out).toMatchObject({
      success: false,
      error: {
        code: 'mcp_tool_error',
        message: 'mcp.math.fail: the fail tool always fails',
        retryable: false,
      },
    });
  });

  it('returns the text (and raw content) of a tool without an output schema', async () => {
    const tools = await mcpTools([server('math', 'shout')], { env: {} });
    const out = await executeTool(byName(tools, 'mcp.math.shout'), { text: 'hi' }, ctx());
    expect(out).toMatchObject({
      success: true,
      output: { text: 'HI', content: [{ type: 'text', text: 'HI' }] },
    });
  });

  it('runs a plan whose MCP output feeds the next step, and type-checks references to it', async () => {
    const tools = await mcpTools([server('math', 'plan')], { env: {} });
    const step = (id: string, parameters: Record<string, unknown>) => ({
      id,
      description: id,
      action: 'mcp.math.add',
      parameters,
      dependencies: [],
    });
    const plan = {
      id: 'plan_mcp',
      version: 1,
      goal: 'add twice',
      strategy: 'manual' as const,
      created_at: new Date().toISOString(),
      steps: [step('first', { a: 2, b: 3 }), step('second', { a: '{{ steps.first.output.sum }}', b: 10 })],
    };
    const result = await new PlanningPattern({ executionMode: 'sequential' }).executePlan({ tools }, plan);
    expect(result).toMatchObject({ success: true, output: { sum: 15 } });

    const bad = {
      ...plan,
      steps: [plan.steps[0], step('second', { a: '{{ steps.first.output.total }}', b: 1 })],
    };
    const checked = validateWith(new ToolRegistry(tools), bad);
    expect(checked.errors.map((e) => e.code)).toContain('bad_reference');
  });

  it('refuses a parameter a strict tool does not declare; a z.object tool is listed open and takes any', async () => {
    // What the SDK lists for z.strictObject, and for a raw shape (a z.object, which strips on the server).
    const listing = await listMcpTools(server('wx', 'closed-keys'), { headers: {} });
    const additional = (name: string) =>
      listing.tools.find((t) => t.name === name)?.inputSchema as { additionalProperties?: unknown };
    expect(additional('forecast')).toMatchObject({ additionalProperties: false });
    expect(additional('shout')).not.toHaveProperty('additionalProperties');
    const registry = new ToolRegistry(await mcpTools([server('wx', 'closed-keys')], { env: {} }));
    const checked = validateWith(registry, {
      steps: [
        { id: 'weather', action: 'mcp.wx.forecast', parameters: { city: 'Oslo', units: 'metric' } },
        { id: 'loud', action: 'mcp.wx.shout', parameters: { text: 'hi', volume: 11 } },
      ],
    });
    expect(checked.errors).toEqual([
      {
        code: 'invalid_parameters',
        message:
          'Step "weather": parameters.units: unknown parameter "units"; tool mcp.wx.forecast takes city',
        step_id: 'weather',
        path: ['parameters', 'units'],
      },
    ]);
  });

  it('names a key a closed schema with minProperties, propertyNames and patternProperties does not take', async () => {
    const listing = await listMcpTools(server('tags', 'key-guards'), { headers: {} });
    // As the server lists it: closed, with the keywords zod converts to something other than an object.
    expect(listing.tools.find((t) => t.name === 'label')?.inputSchema).toMatchObject({
      additionalProperties: false,
      minProperties: 1,
      propertyNames: { pattern: '^[a-z_]+$' },
      patternProperties: { '^x_': { type: 'string' } },
    });
    const registry = new ToolRegistry(await mcpTools([server('tags', 'key-guards')], { env: {} }));
    const label = (id: string, parameters: Record<string, unknown>) => ({
      id,
      action: 'mcp.tags.label',
      parameters,
    });
    const checked = validateWith(registry, {
      steps: [
        label('misspelt', { text: 'a', colour: 'red' }),
        label('patterned', { text: 'b', x_note: 'kept' }),
        label('cased', { text: 'c', Color: 'red' }),
      ],
    });
    expect(checked.errors).toEqual([
      {
        code: 'invalid_parameters',
        message:
          'Step "misspelt": parameters.colour: unknown parameter "colour" (did you mean "color"?); tool mcp.tags.label takes text, color, or keys matching /^x_/',
        step_id: 'misspelt',
        path: ['parameters', 'colour'],
      },
      // Its name is refused before the object is checked (propertyNames), so said once, that way.
      {
        code: 'invalid_parameters',
        message:
          'Step "cased": parameters.Color: key "Color" is not a name tool mcp.tags.label takes (must match the pattern /^[a-z_]+$/) (did you mean "color"?)',
        step_id: 'cased',
        path: ['parameters', 'Color'],
      },
    ]);
  });

  it('fails a listing, and a call, to a server that is down as retryable', async () => {
    const gone = { name: 'gone', url: closedUrl };
    const listed = await mcpTools([gone], { env: {} }).catch((e: unknown) => e);
    expect(listed).toMatchObject({ code: 'mcp_unreachable', retryable: true });

    // A listing cached while the server was up, called after it went away.
    const listing = {
      server: 'gone',
      version: '1',
      tools: [{ name: 'add', inputSchema: { type: 'object' } }],
    };
    await env.KV.put(await listingKey(gone), JSON.stringify(listing));
    const tools = await mcpTools([gone], { env: {}, kv: env.KV });
    const out = await executeTool(byName(tools, 'mcp.gone.add'), { a: 1, b: 2 }, ctx());
    expect(out).toMatchObject({ success: false, error: { code: 'mcp_unreachable', retryable: true } });
  });

  it('leaves out a server whose listing fails when onListError is given', async () => {
    const failed: string[] = [];
    const tools = await mcpTools([server('math', 'partial'), { name: 'gone', url: closedUrl }], {
      env: {},
      onListError: (s, err) => failed.push(`${s.name}: ${(err as { code?: string }).code}`),
    });
    expect(failed).toEqual(['gone: mcp_unreachable']);
    expect(tools.map((t) => t.name)).toContain('mcp.math.add');
  });

  it('caches a listing in KV and refreshes it on request', async () => {
    const s = server('cached', 'cached');
    await mcpTools([s], { env: {}, kv: env.KV });
    await mcpTools([s], { env: {}, kv: env.KV });
    expect((await stats('cached')).list_calls).toBe(1);
    await mcpTools([s], { env: {}, kv: env.KV, refresh: true });
    expect((await stats('cached')).list_calls).toBe(2);
  });

  it('uses a listing too long for a KV value without caching it, says so, and lists again next time', async () => {
    const s = server('big', 'too-long-for-kv');
    const logged = vi.spyOn(console, 'warn');
    // KV's real limit is 25 MiB; the test server's listing is a few KiB, so the limit is lowered.
    const tools = await mcpTools([s], { env: {}, kv: env.KV, kvMaxBytes: 1024 });
    const out = await executeTool(byName(tools, 'mcp.big.add'), { a: 1, b: 2 }, ctx());
    expect(out).toMatchObject({ success: true, output: { sum: 3 } });
    expect(await env.KV.get(await listingKey(s))).toBeNull();
    const lines = logged.mock.calls.map((c) => c.map(String).join(' '));
    logged.mockRestore();
    const line = lines.find((l) => l.includes('mcp_listing_not_cached'));
    expect(line).toContain('MCP server \\"big\\"');
    expect(line).toContain('is longer than a KV value may be (1024 bytes)');
    // Not cached: the next isolate (here, the next call) asks the server again.
    await mcpTools([s], { env: {}, kv: env.KV, kvMaxBytes: 1024 });
    expect((await stats('too-long-for-kv')).list_calls).toBe(2);
    // Under the default limit the same listing goes to KV.
    expect(MCP_LISTING_KV_MAX_BYTES).toBe(25 * 1024 * 1024);
    await mcpTools([s], { env: {}, kv: env.KV, refresh: true });
    expect(await env.KV.get(await listingKey(s), 'json')).toMatchObject({ server: 'big' });
  });

  it('uses a listing KV refuses to read or write, logging why', async () => {
    // A name no MCP_SERVERS entry may have (1-64 characters): its key is longer than KV takes (512 bytes).
    const s = server('n'.repeat(600), 'kv-refuses');
    const logged = vi.spyOn(console, 'warn');
    const listing = await listMcpTools(s, { headers: {}, kv: env.KV });
    const lines = logged.mock.calls.map((c) => c.map(String).join(' '));
    logged.mockRestore();
    expect(listing.tools.map((t) => t.name)).toContain('add');
    // Its read is refused too: the server is asked.
    expect(lines.find((l) => l.includes('mcp_listing_cache_unreadable'))).toContain('could not be read');
    const line = lines.find((l) => l.includes('mcp_listing_not_cached'));
    expect(line).toContain('could not be written to KV');
    expect(line).toMatch(/"error":\{"name":"\w*Error"/);
  });
});
