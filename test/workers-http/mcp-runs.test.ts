/**
 * MCP_SERVERS tools in whole runs: `POST /v1/runs` → the run's Durable Object → a real MCP server on
 * 127.0.0.1 (vitest.config.mts names it in this project's MCP_SERVERS; test/workers-http/mcp-server.ts).
 */
import { inject } from 'vitest';
import { describe, expect, it } from 'vitest';
import { workerToolRegistry } from '../../src/durable/tools';
import { loadMcpTools, mcpListingFailures } from '../../src/mcp/worker-tools';
import { validatePlan } from '../../src/plan/validate';
import { api, startRun, waitForRun } from '../workers/helpers';

async function stats(path: string): Promise<{ list_calls: number; call_calls: number }> {
  const res = await fetch(`http://127.0.0.1:${inject('mcpPort')}/mcp-stats?path=${path}`);
  return res.json();
}

describe('MCP_SERVERS tools in runs', () => {
  it('lists the configured servers’ tools in GET /v1/tools, a malformed entry beside them left out', async () => {
    const r = await api('GET', '/v1/tools');
    const names = (r.body.tools as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['mcp.math.add', 'mcp.math.fail', 'mcp.authd.whoami']));
    // MCP_SERVERS also names "bad.name" (vitest.config.mts), which is not a server name.
    expect(names.filter((n) => n.startsWith('mcp.bad'))).toEqual([]);
  });

  it('says why a malformed entry’s tools are missing: in GET /v1/tools and in the plan’s finding', async () => {
    // "bad.name" (vitest.config.mts) was only in the Worker's log: a plan naming its tools heard
    // `unknown tool` and the list of registered tools, not a word about MCP_SERVERS. A name that is not
    // one is not quoted (it may be a secret in the wrong field): the entry is named by its place.
    const r = await api('GET', '/v1/tools');
    const unavailable = r.body.unavailable as { server: string; name?: string; reason: string }[];
    const bad = unavailable.filter((u) => u.server === 'MCP_SERVERS[2]');
    expect(bad).toEqual([
      {
        server: 'MCP_SERVERS[2]',
        reason: expect.stringMatching(
          /^is misconfigured: MCP_SERVERS\[2\]\.name must be .*; correct it in MCP_SERVERS/,
        ),
      },
    ]);
    const v = await api('POST', '/v1/plans/validate', {
      plan: { steps: [{ id: 'a', action: 'mcp.bad.name.add', parameters: {} }] },
    });
    expect(v.status).toBe(200);
    expect(v.body.errors).toEqual([
      expect.objectContaining({
        code: 'unknown_tool',
        message: expect.stringContaining(
          'unknown tool "mcp.bad.name.add" (MCP server "MCP_SERVERS[2]" is misconfigured: MCP_SERVERS[2].name must be',
        ),
      }),
    ]);
  });

  it('lists the servers again on GET /v1/tools?refresh=true, and from the cache without it', async () => {
    await api('GET', '/v1/tools');
    const before = await stats('/mcp/e2e');
    const cached = await api('GET', '/v1/tools');
    expect(cached.status).toBe(200);
    expect((await stats('/mcp/e2e')).list_calls).toBe(before.list_calls);
    const refreshed = await api('GET', '/v1/tools?refresh=true');
    expect(refreshed.status).toBe(200);
    expect((refreshed.body.tools as { name: string }[]).map((t) => t.name)).toContain('mcp.math.add');
    expect((await stats('/mcp/e2e')).list_calls).toBe(before.list_calls + 1);
  });

  it('answers 400 for a refresh value that is not true or false', async () => {
    const r = await api('GET', '/v1/tools?refresh=yes');
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
  });

  it('runs a plan whose MCP step’s output feeds the next step, the secret header sent', async () => {
    const runId = await startRun(
      {
        steps: [
          { id: 'add', action: 'mcp.math.add', parameters: { a: 2, b: 40 } },
          { id: 'echo', action: 'demo.echo', parameters: { total: '{{ steps.add.output.sum }}' } },
          { id: 'who', action: 'mcp.authd.whoami', parameters: {} },
          { id: 'meta', action: 'mcp.math.echo_meta', parameters: {} },
        ],
      },
      { retry_failed_steps: 0 },
    );
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.echo).toEqual({ total: 42 });
    expect(run.step_results.who).toEqual({ authorization: 'Bearer mcp-s3cret' });
    expect(run.step_results.meta.meta['edgeplan/idempotency_key']).toBe(`${runId}:meta`);
  });

  it('refuses a plan whose MCP parameters fail the inputSchema, or whose reference misses the outputSchema', async () => {
    const before = await stats('/mcp/e2e');
    const r = await api('POST', '/v1/runs', {
      plan: {
        steps: [
          { id: 'add', action: 'mcp.math.add', parameters: { a: 'two', b: 1 } },
          { id: 'use', action: 'demo.echo', parameters: { x: '{{ steps.add.output.total }}' } },
        ],
      },
    });
    expect(r.status).toBe(422);
    const codes = (r.body.error.details.errors as { code: string }[]).map((e) => e.code);
    expect(codes).toEqual(expect.arrayContaining(['invalid_parameters', 'bad_reference']));
    expect((await stats('/mcp/e2e')).call_calls).toBe(before.call_calls);
  });

  it('names a key inside a strict MCP tool’s nested object, and a name-only fallback that cannot take the step’s parameters, before calling the server', async () => {
    const before = await stats('/mcp/e2e');
    const plan = {
      steps: [
        {
          id: 'stay',
          action: 'mcp.math.book',
          parameters: { city: 'Oslo', stay: { nigths: 2 } },
          fallback_action: 'mcp.math.forecast',
        },
      ],
    };
    const checked = await api('POST', '/v1/plans/validate', { plan });
    expect(checked.status).toBe(200);
    expect(checked.body.valid).toBe(false);
    expect(checked.body.errors).toEqual([
      expect.objectContaining({
        code: 'invalid_parameters',
        step_id: 'stay',
        path: ['parameters', 'stay', 'nigths'],
        message:
          'Step "stay": parameters.stay.nigths: unknown key "nigths" (did you mean "nights"?); parameters.stay of tool mcp.math.book takes nights, guests',
      }),
      expect.objectContaining({ code: 'invalid_parameters', path: ['parameters', 'stay', 'nights'] }),
      expect.objectContaining({
        code: 'invalid_parameters',
        path: ['fallback_action'],
        message: expect.stringContaining(
          'fallback_action "mcp.math.forecast" runs with the step\'s parameters, which it cannot take: parameters.stay: unknown parameter "stay"; tool mcp.math.forecast takes city',
        ),
      }),
    ]);
    const refused = await api('POST', '/v1/runs', { plan });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('invalid_plan');
    expect((refused.body.error.details.errors as { path: unknown }[]).map((e) => e.path)).toEqual(
      (checked.body.errors as { path: unknown }[]).map((e) => e.path),
    );
    expect((await stats('/mcp/e2e')).call_calls).toBe(before.call_calls);

    // As the findings say: the key spelt right, the fallback given parameters of its own.
    const fixed = {
      steps: [
        {
          ...plan.steps[0]!,
          parameters: { city: 'Oslo', stay: { nights: 2 } },
          fallback_action: { action: 'mcp.math.forecast', parameters: { city: 'Oslo' } },
        },
      ],
    };
    const run = await waitForRun(await startRun(fixed, { retry_failed_steps: 0 }));
    expect(run.status).toBe('completed');
    expect(run.step_results.stay).toMatchObject({ text: '2 nights in Oslo' });
  });

  it('fails the step with the server’s text when the tool answers isError', async () => {
    const run = await waitForRun(
      await startRun(
        { steps: [{ id: 'f', action: 'mcp.math.fail', parameters: {} }] },
        { retry_failed_steps: 0 },
      ),
    );
    expect(run.status).toBe('failed');
    const trace = JSON.stringify((await api('GET', `/v1/runs/${run.run_id}/events?limit=1000`)).body.events);
    expect(trace).toContain('"code":"mcp_tool_error","message":"mcp.math.fail: the fail tool always fails"');
  });
});

describe('an MCP server that cannot be listed', () => {
  const outage = (path: string, isDown: boolean) =>
    fetch(`http://127.0.0.1:${inject('mcpPort')}/mcp-down?path=${path}&down=${isDown}`, { method: 'POST' });
  const check = (env: Record<string, string>) => ({
    tools: workerToolRegistry(env),
    clock: { now: () => new Date() },
    ids: { id: (p: string) => `${p}_1`, uuid: () => crypto.randomUUID() },
  });
  const serverAt = (path: string) => ({
    MCP_SERVERS: JSON.stringify([{ name: 'blip', url: `http://127.0.0.1:${inject('mcpPort')}${path}` }]),
  });

  it('keeps the tools it listed last through an outage, and says why a tool it never listed is missing', async () => {
    const env = serverAt('/mcp/blip');
    expect((await loadMcpTools(env)).map((t) => t.name)).toContain('mcp.blip.add');
    await outage('/mcp/blip', true);
    try {
      // A refresh during the outage: it left the server's tools out for the listing's 5 minutes.
      const during = await loadMcpTools(env, { refresh: true });
      expect(during.map((t) => t.name)).toContain('mcp.blip.add');
      expect([...mcpListingFailures(env).keys()]).toEqual(['blip']);
      const findings = validatePlan(
        { steps: [{ id: 'a', action: 'mcp.blip.new_tool', parameters: {} }] },
        check(env),
      ).errors;
      expect(findings[0]?.message).toMatch(
        /unknown tool "mcp\.blip\.new_tool" \(MCP server "blip" could not be listed: Streamable HTTP error: .*down for maintenance\)$/,
      );
    } finally {
      await outage('/mcp/blip', false);
    }
    // Listed again once it answers: the failure is gone.
    await loadMcpTools(env, { refresh: true });
    expect(mcpListingFailures(env).size).toBe(0);
  });

  it('names the entry in the finding when MCP_SERVERS is malformed, whole or in part', async () => {
    const typo = { MCP_SERVERS: '[{"name":"weather","url":"127.0.0.1:8894/mcp"}]' };
    expect(await loadMcpTools(typo)).toEqual([]);
    const one = validatePlan(
      { steps: [{ id: 'a', action: 'mcp.weather.forecast', parameters: {} }] },
      check(typo),
    ).errors;
    expect(one[0]?.message).toBe(
      'Step "a": unknown tool "mcp.weather.forecast" (MCP server "weather" is misconfigured: MCP_SERVERS[0] ' +
        '("weather").url must be an http(s) URL (got text that is not an absolute URL); correct it in MCP_SERVERS ' +
        '(.dev.vars, then restart wrangler dev; deployed: [vars] or the secret))',
    );
    // Not JSON at all: every mcp.* action says so.
    const broken = { MCP_SERVERS: "[{'name':'weather'}]" };
    await loadMcpTools(broken);
    const all = validatePlan(
      { steps: [{ id: 'a', action: 'mcp.weather.forecast', parameters: {} }] },
      check(broken),
    ).errors;
    expect(all[0]?.message).toMatch(
      /\(MCP server "MCP_SERVERS" is misconfigured: MCP_SERVERS is not JSON \(at line 1, column \d+\)/,
    );
  });

  it('names the server in the finding when it was down from the start', async () => {
    const env = serverAt('/mcp/never');
    await outage('/mcp/never', true);
    try {
      expect(await loadMcpTools(env)).toEqual([]);
      const findings = validatePlan(
        { steps: [{ id: 'a', action: 'mcp.blip.add', parameters: { a: 1, b: 2 } }] },
        check(env),
      ).errors;
      expect(findings[0]).toMatchObject({ code: 'unknown_tool', step_id: 'a' });
      expect(findings[0]?.message).toContain('MCP server "blip" could not be listed');
    } finally {
      await outage('/mcp/never', false);
    }
  });
});
