/**
 * MCP servers that misbehave, as tool sources: a real MCP server on 127.0.0.1 that lists malformed,
 * oversized or looping tools, hangs, drops the connection, answers too much or something MCP does not
 * allow, and echoes the credentials it was sent (test/workers-http/mcp-hostile-server.ts). Calls go
 * through `executeTool` (what a step runs) with the runtime's own fetch, and through whole runs: the
 * project's MCP_SERVERS names four of its paths (vitest.config.mts).
 */
import { env } from 'cloudflare:workers';
import { inject } from 'vitest';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { executeTool } from '../../src/executor/run-step';
import { ToolRegistry, type AnyTool } from '../../src/executor/registry';
import {
  MAX_DESCRIPTION_CHARS,
  MAX_LISTED_TOOLS,
  MAX_LISTING_CHARS,
  type McpLeftOutTool,
} from '../../src/mcp/listing';
import { mcpTools } from '../../src/mcp/tools';
import { loadMcpTools, mcpUnavailable } from '../../src/mcp/worker-tools';
import { api, startRun, waitForRun } from '../workers/helpers';

const base = `http://127.0.0.1:${inject('hostileMcpPort')}`;

/** The tools of the server at `/h/<mode>/<path>`, named `mcp.h.<tool>`. */
const listed = (mode: string, path: string, headers?: Record<string, string>) =>
  mcpTools([{ name: 'h', url: `${base}/h/${mode}/${path}`, ...(headers ? { headers } : {}) }], { env: {} });

async function stats(path: string): Promise<{ list_calls: number; call_calls: number }> {
  return (await fetch(`${base}/h-stats?path=${path}`)).json();
}

function byName(tools: AnyTool[], name: string): AnyTool {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} in ${tools.map((t) => t.name).join(', ')}`);
  return tool;
}

const ctx = (over: Record<string, unknown> = {}) => ({
  runId: 'run_hostile',
  stepId: 's1',
  attempt: 1,
  idempotencyKey: 'run_hostile:s1',
  env: {},
  timeoutMs: 30_000,
  ...over,
});

describe('an MCP server whose listing misbehaves', () => {
  it('leaves out the tools MCP does not allow — a name of unicode or 10,000 characters, a second "dup", an invalid inputSchema — and keeps the rest', async () => {
    const names = (await listed('names', 'a')).map((t) => t.name);
    expect(names).toEqual(['mcp.h.ok', 'mcp.h.a.b', 'mcp.h.http.request', 'mcp.h.dup']);
    // One tool the protocol's schema refuses took every tool of the server away, as "could not be reached".
    expect((await listed('schemas-invalid', 'a')).map((t) => t.name)).toEqual(['mcp.h.ok']);
  });

  it('says why each tool was left out, and still says so when the listing comes from KV', async () => {
    const seen: McpLeftOutTool[][] = [];
    const server = { name: 'h', url: `${base}/h/names/kv` };
    const opts = {
      env: {},
      kv: env.KV,
      onLeftOut: (_: unknown, l: readonly McpLeftOutTool[]) => seen.push([...l]),
    };
    const first = (await mcpTools([server], opts)).map((t) => t.name);
    const second = (await mcpTools([server], opts)).map((t) => t.name);
    expect((await stats('/h/names/kv')).list_calls).toBe(1);
    expect(second).toEqual(first);
    expect(seen[0]).toEqual([
      { name: 'ünï', reason: expect.stringContaining('rename the tool on the server') },
      { name: `${'x'.repeat(140)}…`, reason: expect.stringContaining('MCP tool names are 1-128 of') },
      { name: 'dup', reason: expect.stringContaining('lists a tool of that name already') },
    ]);
    expect(seen[1]).toEqual(seen[0]);

    const invalid: McpLeftOutTool[] = [];
    await mcpTools([{ name: 'h', url: `${base}/h/schemas-invalid/why` }], {
      env: {},
      onLeftOut: (_, l) => invalid.push(...l),
    });
    expect(invalid).toEqual([
      {
        name: 'invalid',
        reason: expect.stringMatching(
          /^its definition is not valid MCP \(inputSchema\.properties: .*\); fix/,
        ),
      },
    ]);
  });

  it('leaves out names with slashes or path segments, over 128 characters or empty, and keeps dotted ones callable', async () => {
    const leftOut: McpLeftOutTool[] = [];
    const tools = await mcpTools([{ name: 'h', url: `${base}/h/names-path/a` }], {
      env: {},
      onLeftOut: (_, l) => leftOut.push(...l),
    });
    expect(tools.map((t) => t.name)).toEqual(['mcp.h.ok', 'mcp.h.a.b.c', `mcp.h.${'y'.repeat(128)}`]);
    expect(leftOut.map((t) => t.name)).toEqual(['fs/read', '../../etc/passwd', `${'z'.repeat(129)}`, '']);
    expect(leftOut.every((t) => t.reason.includes('rename the tool on the server'))).toBe(true);
    // The dotted name reaches the server as it listed it.
    const out = await executeTool(byName(tools, 'mcp.h.a.b.c'), {}, ctx());
    expect(out).toMatchObject({ success: true, output: { text: 'a.b.c in names-path' } });
  });

  it('keeps the reason short when the invalid part is a 100,000-character key of the server’s', async () => {
    const leftOut: McpLeftOutTool[] = [];
    const tools = await mcpTools([{ name: 'h', url: `${base}/h/schemas-longkey/a` }], {
      env: {},
      onLeftOut: (_, l) => leftOut.push(...l),
    });
    expect(tools.map((t) => t.name)).toEqual(['mcp.h.ok']);
    expect(leftOut).toEqual([
      { name: 'longkey', reason: expect.stringContaining('inputSchema.properties.kkk') },
    ]);
    expect(leftOut[0]!.reason.length).toBeLessThan(400);
  });

  it('still says why a tool was left out while its server cannot be listed', async () => {
    const path = '/h/names/outage';
    const mcpEnv = { MCP_SERVERS: JSON.stringify([{ name: 'o', url: `${base}${path}` }]) };
    const outage = (isDown: boolean) =>
      fetch(`${base}/h-down?path=${path}&down=${isDown}`, { method: 'POST' });
    await loadMcpTools(mcpEnv);
    const leftOut = () => mcpUnavailable(mcpEnv).filter((u) => u.name !== undefined);
    const before = leftOut();
    expect(before.map((u) => u.name)).toEqual(['mcp.o.ünï', `mcp.o.${'x'.repeat(140)}…`, 'mcp.o.dup']);
    await outage(true);
    try {
      const during = await loadMcpTools(mcpEnv, { refresh: true });
      expect(during.map((t) => t.name)).toContain('mcp.o.ok');
      expect(mcpUnavailable(mcpEnv)).toEqual(
        expect.arrayContaining([{ server: 'o', reason: expect.stringContaining('could not be listed') }]),
      );
      expect(leftOut()).toEqual(before);
    } finally {
      await outage(false);
    }
    await loadMcpTools(mcpEnv, { refresh: true });
    expect(mcpUnavailable(mcpEnv)).toEqual(before);
  });

  it('lists tools over many pages up to MAX_LISTED_TOOLS, asking for no page past it, and cuts an 8 MB description', async () => {
    expect(await listed('many', 'a')).toHaveLength(MAX_LISTED_TOOLS);
    expect((await stats('/h/many/a')).list_calls).toBe(MAX_LISTED_TOOLS / 100);
    const big = byName(await listed('bigList', 'a'), 'mcp.h.big');
    expect(big.description.length).toBe(MAX_DESCRIPTION_CHARS + 1);
  });

  it('keeps a server to MAX_LISTED_TOOLS tools and MAX_LISTING_CHARS of definitions: one page of 100,000 tools, or fat schemas', async () => {
    // Each kept tool's schema is converted for every isolate: 100,000 took 3 s of CPU and 200 MB.
    expect(await listed('flood', 'a')).toHaveLength(MAX_LISTED_TOOLS);
    const fat = await listed('fat', 'a');
    const chars = fat.map((t) => JSON.stringify(z.toJSONSchema(t.input)).length).reduce((a, b) => a + b, 0);
    expect(fat.length).toBeGreaterThan(0);
    expect(chars).toBeLessThanOrEqual(MAX_LISTING_CHARS);
    expect((await stats('/h/fat/a')).list_calls).toBe(1);
  });

  it('takes any object for a tool whose inputSchema $ref loops, instead of overflowing the stack on every check', async () => {
    const tools = await listed('schemas-loop', 'a');
    expect(new ToolRegistry(tools).describe().map((d) => d.name)).toContain('mcp.h.loop');
    const out = await executeTool(byName(tools, 'mcp.h.loop'), { x: 1 }, ctx());
    expect(out).toMatchObject({ success: true, output: { text: 'loop in schemas-loop' } });
  });
});

describe('an MCP tool call that misbehaves', () => {
  it('times out a call the server never answers, retryable', async () => {
    const tools = await listed('hang', 'a');
    const out = await executeTool(byName(tools, 'mcp.h.act'), {}, ctx({ timeoutMs: 500 }));
    expect(out).toMatchObject({ success: false, error: { code: 'timeout', retryable: true } });
    expect((await stats('/h/hang/a')).call_calls).toBe(1);
  });

  it('keeps on the error the wait a busy server asks (Retry-After on a 429 or 503), which the retry waits', async () => {
    const busy = await executeTool(byName(await listed('busy', 'a'), 'mcp.h.act'), {}, ctx());
    expect(busy).toMatchObject({
      success: false,
      error: { code: 'mcp_unreachable', retryable: true, retry_after_ms: 120_000 },
    });
    // As a date: the wait from now.
    const dated = await executeTool(byName(await listed('busy-date', 'a'), 'mcp.h.act'), {}, ctx());
    expect(dated).toMatchObject({ success: false, error: { code: 'mcp_unreachable', retryable: true } });
    const asked = (dated as { error: { retry_after_ms?: number } }).error.retry_after_ms ?? 0;
    expect(asked).toBeGreaterThan(80_000);
    expect(asked).toBeLessThanOrEqual(90_000);
    // A header that is no wait asks nothing: the run's own backoff applies.
    const bogus = await executeTool(byName(await listed('busy-bogus', 'a'), 'mcp.h.act'), {}, ctx());
    expect(bogus).toMatchObject({ success: false, error: { code: 'mcp_unreachable', retryable: true } });
    expect((bogus as { error: object }).error).not.toHaveProperty('retry_after_ms');
    expect((await stats('/h/busy/a')).call_calls).toBe(1);
  });

  it('fails a call whose connection drops as mcp_unreachable, retryable', async () => {
    const out = await executeTool(byName(await listed('drop', 'a'), 'mcp.h.act'), {}, ctx());
    expect(out).toMatchObject({ success: false, error: { code: 'mcp_unreachable', retryable: true } });
  });

  it('stops reading an answer over 32 MiB, and does not call again', async () => {
    const out = await executeTool(byName(await listed('huge', 'a'), 'mcp.h.act'), {}, ctx());
    expect(out).toMatchObject({
      success: false,
      error: { code: 'mcp_response_too_large', retryable: false },
    });
  });

  it('fails a result MCP does not allow as mcp_bad_response, not retried (the call may have had its effect)', async () => {
    const out = await executeTool(byName(await listed('malformed', 'a'), 'mcp.h.act'), {}, ctx());
    expect(out).toMatchObject({
      success: false,
      error: { code: 'mcp_bad_response', retryable: false, message: expect.stringContaining('content.0') },
    });
    // It was read as "could not be reached": retried, and the message a dump of zod's issues.
    expect((out as { error: { message: string } }).error.message.length).toBeLessThan(300);
  });

  it.each(['error-32000', 'error-32001'])(
    'fails a call the server refuses with %s as mcp_error, not retried: not a closed connection or a timeout',
    async (mode) => {
      const out = await executeTool(byName(await listed(mode, 'a'), 'mcp.h.act'), {}, ctx());
      expect(out).toMatchObject({
        success: false,
        error: {
          code: 'mcp_error',
          retryable: false,
          message: expect.stringContaining('MCP server "h": MCP error -3200'),
        },
      });
      expect((out as { error: { message: string } }).error.message).toContain('the tool broke');
    },
  );

  it('fails a call answered with another request’s id as mcp_bad_response at once, not at the step’s timeout', async () => {
    const out = await executeTool(
      byName(await listed('wrong-id', 'a'), 'mcp.h.act'),
      {},
      ctx({ timeoutMs: 5_000 }),
    );
    expect(out).toMatchObject({
      success: false,
      error: {
        code: 'mcp_bad_response',
        retryable: false,
        message: expect.stringContaining('MCP server "h" answered a request it was not sent'),
      },
    });
  });

  it('fails an answer that is not JSON as mcp_bad_response naming the server, not retried', async () => {
    const out = await executeTool(byName(await listed('nonjson', 'a'), 'mcp.h.act'), {}, ctx());
    expect(out).toMatchObject({
      success: false,
      error: {
        code: 'mcp_bad_response',
        retryable: false,
        message: expect.stringContaining('MCP server "h" answered with something that is not JSON'),
      },
    });
  });

  it('fails an event stream whose event is not JSON without waiting for the step’s timeout', async () => {
    const out = await executeTool(byName(await listed('nonjson-sse', 'a'), 'mcp.h.act'), {}, ctx());
    expect(out).toMatchObject({ success: false, error: { code: 'mcp_bad_response', retryable: false } });
  });

  it('fails a typed tool answering no structuredContent as invalid_output', async () => {
    const out = await executeTool(byName(await listed('untyped', 'a'), 'mcp.h.add'), {}, ctx());
    expect(out).toMatchObject({ success: false, error: { code: 'invalid_output', retryable: false } });
  });

  it('returns images, resource links and embedded binaries as content beside the text', async () => {
    const out = await executeTool(byName(await listed('content', 'a'), 'mcp.h.act'), {}, ctx());
    expect(out).toMatchObject({
      success: true,
      output: {
        text: 'see attached',
        content: [
          { type: 'text' },
          { type: 'image', mimeType: 'image/png' },
          { type: 'resource_link', uri: 'file:///etc/passwd' },
          { type: 'resource', resource: { blob: 'AAECAw==' } },
        ],
      },
    });
  });

  it('fails structuredContent that disagrees with the outputSchema as invalid_output', async () => {
    const out = await executeTool(byName(await listed('mismatch', 'a'), 'mcp.h.add'), {}, ctx());
    expect(out).toMatchObject({ success: false, error: { code: 'invalid_output', retryable: false } });
  });

  it('never puts the configured credentials in an error, even when the server echoes them', async () => {
    const refused = await listed('leak', 'wrong', { Authorization: 'Bearer wrong-s3cret-value' }).catch(
      (e: unknown) => e as Error,
    );
    expect(refused).toMatchObject({ code: 'mcp_error', message: expect.stringContaining('bad credentials') });
    expect((refused as Error).message).not.toContain('wrong-s3cret');

    const tools = await listed('leak', 'right', { Authorization: 'Bearer hostile-s3cret' });
    const out = await executeTool(byName(tools, 'mcp.h.act'), {}, ctx());
    expect(out).toMatchObject({ success: false, error: { code: 'mcp_tool_error' } });
    expect(JSON.stringify(out)).not.toContain('hostile-s3cret');
  });

  it('does not follow a redirect to another origin (a metadata address)', async () => {
    const refused = await listed('redirect', 'a').catch((e: unknown) => e as Error);
    expect(refused).toMatchObject({ code: 'mcp_error', message: expect.stringContaining('not followed') });
  });

  it('says a server refusing POST may speak the older HTTP+SSE transport', async () => {
    const refused = await listed('sse', 'a').catch((e: unknown) => e as Error);
    expect(refused).toMatchObject({
      code: 'mcp_error',
      message: expect.stringContaining('edgeplan speaks Streamable HTTP'),
    });
  });
});

describe('misbehaving MCP servers in validation', () => {
  it('says a step’s parameters were not checked when its tool’s inputSchema could not be read', async () => {
    const plan = { steps: [{ id: 'l', action: 'mcp.hostile_loop.loop', parameters: { x: 1, anything: 2 } }] };
    const r = await api('POST', '/v1/plans/validate', { plan });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ valid: true, errors: [] });
    expect(r.body.unchecked).toEqual([
      {
        step_id: 'l',
        tool: 'mcp.hostile_loop.loop',
        path: ['parameters'],
        message: expect.stringMatching(
          /^Step "l": parameters not checked: the input schema of mcp\.hostile_loop\.loop could not be read \("\$ref": .* refers back to itself without reading a value\); its server checks them when the step runs$/,
        ),
      },
    ]);
    // The tool list says so too.
    const tools = await api('GET', '/v1/tools');
    const loop = (tools.body.tools as { name: string; input_schema?: Record<string, unknown> }[]).find(
      (t) => t.name === 'mcp.hostile_loop.loop',
    );
    expect(loop?.input_schema?.['x-edgeplan-unchecked']).toMatch(/refers back to itself/);
  });
});

describe('misbehaving MCP servers in runs', () => {
  it('starts and completes a run calling a tool whose inputSchema $ref loops', async () => {
    const r = await api('POST', '/v1/runs', {
      plan: { steps: [{ id: 'l', action: 'mcp.hostile_loop.loop', parameters: { x: 1 } }] },
      config: { retry_failed_steps: 0 },
    });
    expect(r.status).toBe(201);
    const run = await waitForRun(r.body.run_id as string);
    expect(run).toMatchObject({ status: 'completed', step_results: { l: { text: 'loop in schemas-loop' } } });
  });

  it('times out a step whose call hangs, retries it once, and the run object still answers', async () => {
    const before = (await stats('/h/hang/e2e')).call_calls;
    const runId = await startRun(
      { steps: [{ id: 'h', action: 'mcp.hostile_hang.act', parameters: {} }] },
      { retry_failed_steps: 1, step_timeout: 0.5 },
    );
    const run = await waitForRun(runId, undefined, 20_000);
    expect(run.status).toBe('failed');
    // The step's limit as configured, though the queue's delivery took some of it before the consumer
    // began the attempt (what the tool was given is what was left).
    expect(run.error.message).toContain('timed out after 500 ms');
    expect((await stats('/h/hang/e2e')).call_calls).toBe(before + 2);
    expect((await api('GET', `/v1/runs/${runId}/events?limit=1000`)).status).toBe(200);
    expect((await api('POST', `/v1/runs/${runId}/retry`, {})).status).toBe(200);
  });

  it('says in a plan’s unknown_tool finding which server listed a left-out tool and why', async () => {
    const r = await api('POST', '/v1/plans/validate', {
      plan: {
        goal: 'g',
        steps: [
          { id: 'u', action: 'mcp.hostile_names.ünï', parameters: {} },
          { id: 'i', action: 'mcp.hostile_invalid.invalid', parameters: {} },
          { id: 'n', action: 'mcp.hostile_names.never_listed', parameters: {} },
        ],
      },
    });
    const findings = r.body.errors as { code: string; step_id: string; message: string }[];
    const of = (id: string) => findings.find((f) => f.step_id === id && f.code === 'unknown_tool')?.message;
    expect(of('u')).toBe(
      'Step "u": unknown tool "mcp.hostile_names.ünï" (MCP server "hostile_names" lists "ünï", but it is left out: MCP tool names are 1-128 of A-Z, a-z, 0-9, "_", "-" and "."; rename the tool on the server)',
    );
    expect(of('i')).toMatch(
      /^Step "i": unknown tool "mcp\.hostile_invalid\.invalid" \(MCP server "hostile_invalid" lists "invalid", but it is left out: its definition is not valid MCP \(inputSchema\.properties: .*\); fix the tool's definition on the server\)$/,
    );
    // A name the server never listed gets no reason of another tool's.
    expect(of('n')).not.toContain('left out');
    // The server's other tools, and the first "dup", are there.
    expect(findings.filter((f) => f.step_id === 'n')).toHaveLength(1);
  });

  it('reports left-out tools, and servers that could not be listed, in GET /v1/tools', async () => {
    const r = await api('GET', '/v1/tools');
    expect(r.status).toBe(200);
    const names = (r.body.tools as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['mcp.hostile_names.ok', 'mcp.hostile_names.dup']));
    const unavailable = r.body.unavailable as { server: string; name?: string; reason: string }[];
    expect(unavailable).toEqual(
      expect.arrayContaining([
        { server: 'hostile_names', name: 'mcp.hostile_names.ünï', reason: expect.stringContaining('rename') },
        {
          server: 'hostile_names',
          name: 'mcp.hostile_names.dup',
          reason: expect.stringContaining('first one'),
        },
        {
          server: 'hostile_invalid',
          name: 'mcp.hostile_invalid.invalid',
          reason: expect.stringContaining('not valid MCP'),
        },
        { server: 'hostile_badauth', reason: expect.stringContaining('could not be listed') },
      ]),
    );
    // A whole server that was listed is not there; a tool that was kept is not there as left out.
    expect(
      unavailable.filter((u) => u.server === 'hostile_leak' || u.name === 'mcp.hostile_names.ok'),
    ).toEqual([]);
  });

  it('keeps the configured tokens out of the run, its events, GET /v1/tools and a plan’s findings', async () => {
    const runId = await startRun(
      { steps: [{ id: 'x', action: 'mcp.hostile_leak.act', parameters: {} }] },
      { retry_failed_steps: 0 },
    );
    const run = await waitForRun(runId);
    expect(run).toMatchObject({
      status: 'failed',
      error: { message: expect.stringContaining('mcp.hostile_leak.act: refused for [REDACTED]') },
    });
    const events = await api('GET', `/v1/runs/${runId}/events?limit=1000`);
    const tools = await api('GET', '/v1/tools');
    // hostile_badauth's listing was refused with its token in the body.
    const findings = await api('POST', '/v1/plans/validate', {
      plan: { goal: 'g', steps: [{ id: 'a', action: 'mcp.hostile_badauth.act', parameters: {} }] },
    });
    expect(JSON.stringify(findings.body)).toContain('MCP server \\"hostile_badauth\\" could not be listed');
    const everything = JSON.stringify([run, events.body, tools.body, findings.body]);
    expect(everything).not.toContain('hostile-s3cret');
    expect(everything).not.toContain('wrong-s3cret-value');
  });
});
