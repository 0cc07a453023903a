/**
 * edgeplan as an MCP server: the SDK's own Client, over Streamable HTTP whose fetch goes to the app,
 * calling `/mcp` tools that answer through the real routes, Durable Objects and queue.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { zodJsonSchemaValidator } from '../../src/mcp/json-schema';
import type { Json } from './helpers';
import { app, call, connect, echo, untilDone } from './mcp-client';

/** A raw POST to /mcp (what no SDK client sends: malformed messages, batches). */
async function rpc(body: string): Promise<Response> {
  return app.fetch(
    new Request('http://edgeplan.test/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
    }),
    env,
  );
}

describe('edgeplan as an MCP server at /mcp', () => {
  it('lists the API tools with object input schemas', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'plan_goal',
      'validate_plan',
      'start_run',
      'list_tools',
      'get_run',
      'get_run_value',
      'approve_run',
      'cancel_run',
      'wait_for_run',
      'get_run_events',
      'answer_input',
      'replan_run',
      'retry_run',
      'list_runs',
    ]);
    const getRun = tools.find((t) => t.name === 'get_run');
    expect(getRun?.inputSchema).toMatchObject({ type: 'object', required: ['run_id'] });
    expect(tools.find((t) => t.name === 'approve_run')?.inputSchema.properties).toHaveProperty('decision');
    await client.close();
  });

  it('lists each tool’s arguments as the API documents its route: descriptions, and the plan as the Plan schema', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const schema = (name: string) => tools.find((t) => t.name === name)!.inputSchema as Json;
    const startRun = schema('start_run');
    const props = startRun.properties as Record<string, Json>;
    expect(props.goal!.description).toEqual(expect.any(String));
    expect(props.plan!.anyOf).toContainEqual({ $ref: '#/$defs/Plan' });
    const defs = startRun.$defs as Record<string, Json>;
    expect((defs.Plan!.properties as Json).steps).toEqual({
      type: 'array',
      items: { $ref: '#/$defs/PlanStep' },
    });
    expect((defs.PlanStep!.properties as Json).dependencies).toBeDefined();
    expect((schema('get_run').properties as Record<string, Json>).run_id!.description).toContain('run_');
    expect(schema('cancel_run')).toMatchObject({
      required: ['run_id'],
      properties: { reason: { type: 'string' } },
    });
    // Closed where the route is: a key the route refuses is not listed as taken (approve_run's body
    // was documented open though the run refuses an unknown key).
    for (const name of ['plan_goal', 'validate_plan', 'start_run', 'approve_run', 'cancel_run']) {
      expect(schema(name).additionalProperties, name).toBe(false);
    }
    const edits = (schema('approve_run').$defs as Record<string, Json>).PlanEdit!.oneOf as Json[];
    for (const op of edits) expect(op.additionalProperties).toBe(false);
    // Every reference resolves inside the tool's own schema.
    for (const t of tools) {
      const refs = [...JSON.stringify(t.inputSchema).matchAll(/"\$ref":"#\/\$defs\/([^"]+)"/g)].map(
        (m) => m[1]!,
      );
      const own = Object.keys((t.inputSchema as Json).$defs ?? {});
      expect(
        refs.filter((r) => !own.includes(r)),
        t.name,
      ).toEqual([]);
    }
    // A schema-aware host can check its arguments against it.
    const check = zodJsonSchemaValidator.getValidator(startRun);
    const plan = { goal: 'g', steps: [echo('a', { msg: 'hi' })] };
    expect(check({ plan, config: { execution_mode: 'parallel' } }).valid).toBe(true);
    expect(check({ plan, config: { execution_mode: 'sideways' } }).valid).toBe(false);
    await client.close();
  });

  it('starts a run and gets it until it completed, the result carrying the run’s JSON', async () => {
    const client = await connect();
    const started = await call(client, 'start_run', {
      plan: {
        goal: 'mcp',
        steps: [echo('a', { msg: 'hi' }), echo('b', { got: '{{ steps.a.output.msg }}' })],
      },
    });
    expect(started.isError).toBeUndefined();
    expect(started.structuredContent).toMatchObject({
      status: 'running',
      run_id: expect.stringMatching(/^run_/),
    });
    const run = await untilDone(client, started.structuredContent!.run_id as string);
    expect(run).toMatchObject({ status: 'completed', step_results: { b: { got: 'hi' } } });
    expect(JSON.parse(started.content[0]!.text!)).toEqual(started.structuredContent);
    await client.close();
  });

  it('start_run with an idempotency_key: called again, the same run; with other arguments, refused', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const schema = tools.find((t) => t.name === 'start_run')!.inputSchema as Json;
    expect(schema.properties.idempotency_key).toMatchObject({ type: 'string', maxLength: 255 });
    const key = `mcp-${crypto.randomUUID()}`;
    const plan = { goal: 'once', steps: [echo('a', { n: 1 })] };
    const check = zodJsonSchemaValidator.getValidator(schema);
    expect(check({ plan, idempotency_key: key }).valid).toBe(true);
    const first = await call(client, 'start_run', { plan, idempotency_key: key });
    const again = await call(client, 'start_run', { plan, idempotency_key: key });
    expect([first.isError, again.isError]).toEqual([undefined, undefined]);
    expect(again.structuredContent!.run_id).toBe(first.structuredContent!.run_id);
    // The key is the request's header, not part of its body: the same body over HTTP is the same run.
    const overHttp = await app.fetch(
      new Request('http://edgeplan.test/v1/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify({ plan }),
      }),
      env,
    );
    expect((await overHttp.json<Json>()).run_id).toBe(first.structuredContent!.run_id);
    const other = await call(client, 'start_run', {
      plan: { goal: 'other', steps: [echo('a', { n: 2 })] },
      idempotency_key: key,
    });
    expect(other).toMatchObject({
      isError: true,
      structuredContent: {
        error: { code: 'idempotency_key_reused', details: { run_id: first.structuredContent!.run_id } },
      },
    });
    const notText = await call(client, 'start_run', { plan, idempotency_key: 7 });
    expect(notText.structuredContent).toMatchObject({
      error: {
        code: 'invalid_request',
        message: expect.stringContaining('idempotency_key must be a string'),
      },
    });
    await client.close();
  });

  it('approves a run awaiting approval, which then completes', async () => {
    const client = await connect();
    const started = await call(client, 'start_run', {
      plan: { goal: 'approve me', steps: [echo('a', { ok: true })] },
      config: { require_plan_approval: true },
    });
    const runId = started.structuredContent!.run_id as string;
    expect(started.structuredContent).toMatchObject({ status: 'awaiting_approval' });
    const approved = await call(client, 'approve_run', { run_id: runId, decision: 'approve', comment: 'go' });
    expect(approved.isError).toBeUndefined();
    expect(await untilDone(client, runId)).toMatchObject({
      status: 'completed',
      step_results: { a: { ok: true } },
    });
    await client.close();
  });

  it('cancels a run', async () => {
    const client = await connect();
    const started = await call(client, 'start_run', {
      plan: { goal: 'slow', steps: [{ id: 's', action: 'demo.sleep', parameters: { ms: 5000 } }] },
    });
    const runId = started.structuredContent!.run_id as string;
    const cancelled = await call(client, 'cancel_run', { run_id: runId, reason: 'enough' });
    expect(cancelled.isError).toBeUndefined();
    expect(cancelled.structuredContent).toMatchObject({ status: 'cancelled' });
    expect(await untilDone(client, runId)).toMatchObject({ status: 'cancelled' });
    await client.close();
  });

  it('answers a bad plan with a tool error carrying the findings', async () => {
    const client = await connect();
    const cyclic = { goal: 'c', steps: [echo('a', {}, ['b']), echo('b', {}, ['a'])] };
    const refused = await call(client, 'start_run', { plan: cyclic });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({
      error: { code: 'invalid_plan', details: { errors: [expect.objectContaining({ code: 'cycle' })] } },
    });
    const checked = await call(client, 'validate_plan', { plan: cyclic });
    expect(checked.structuredContent).toMatchObject({ valid: false, errors: [{ code: 'cycle' }] });
    await client.close();
  });

  it('answers a run tool without run_id, or with an unknown one, with a tool error and its code', async () => {
    const client = await connect();
    const missing = await call(client, 'get_run', {});
    expect(missing).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'invalid_request' } },
    });
    const number = await call(client, 'cancel_run', { run_id: 42 });
    expect(number.structuredContent).toMatchObject({
      error: { code: 'invalid_request', message: expect.stringContaining('run_id must be a string') },
    });
    const unknown = await call(client, 'approve_run', { run_id: 'run_nope', decision: 'approve' });
    expect(unknown).toMatchObject({ isError: true, structuredContent: { error: { code: 'not_found' } } });
    await client.close();
  });

  it('lists the actions a plan may name (list_tools), so a model can write one that validates', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'list_tools')?.inputSchema).toMatchObject({
      type: 'object',
      properties: {},
    });
    const listed = await call(client, 'list_tools', {});
    expect(listed.isError).toBeFalsy();
    const actions = (listed.structuredContent as { tools: { name: string; input_schema: Json }[] }).tools;
    const echoTool = actions.find((t) => t.name === 'demo.echo');
    expect(echoTool?.input_schema).toMatchObject({ type: 'object' });
    expect(actions.map((t) => t.name)).toContain('http.request');
    // What it lists is what validate_plan accepts.
    const plan = { goal: 'g', steps: [echo('a', { hi: 1 })] };
    const valid = await call(client, 'validate_plan', { plan });
    expect(valid.structuredContent).toMatchObject({ valid: true });
    await client.close();
  });

  it('names the tool a misspelt call meant, and every tool', async () => {
    const client = await connect();
    const misspelt = await client.callTool({ name: 'strat_run', arguments: {} }).catch((e: unknown) => e);
    expect(misspelt).toMatchObject({ code: -32602 });
    const message = (misspelt as Error).message;
    expect(message).toContain('Unknown tool "strat_run" (did you mean "start_run"?)');
    expect(message).toContain(
      'the tools are plan_goal, validate_plan, start_run, list_tools, get_run, get_run_value, approve_run, cancel_run',
    );
    const unrelated = await client
      .callTool({ name: 'edgeplan_deploy', arguments: {} })
      .catch((e: unknown) => e);
    expect((unrelated as Error).message).not.toContain('did you mean');
    expect((unrelated as Error).message).toContain('Unknown tool "edgeplan_deploy"; the tools are');
    await client.close();
  });

  it('takes the same bearer token as /v1 when API_TOKEN is set', async () => {
    const bindings = { ...env, API_TOKEN: 'mcp-token' };
    const refused = await connect({ bindings }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 401 });
    const client = await connect({ bindings, token: 'mcp-token' });
    const started = await call(client, 'start_run', { plan: { goal: 'auth', steps: [echo('a', { x: 1 })] } });
    expect(started.isError).toBeUndefined();
    const run = await untilDone(client, started.structuredContent!.run_id as string);
    expect(run).toMatchObject({ status: 'completed', step_results: { a: { x: 1 } } });
    await client.close();
  });

  it('answers a body the shared checks refuse as a JSON-RPC error, keeping the status and the API code', async () => {
    const post = (body: string, type = 'application/json') =>
      app.fetch(
        new Request('http://edgeplan.test/mcp', {
          method: 'POST',
          headers: { 'content-type': type, accept: 'application/json, text/event-stream' },
          body,
        }),
        env,
      );
    const deep = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"validate_plan","arguments":${'['.repeat(200)}${']'.repeat(200)}}}`;
    const cases: [Response, number, number, string][] = [
      [await post('{'), 400, -32700, 'invalid_json'],
      [await post(deep), 400, -32600, 'invalid_request'],
      [await post('hello', 'text/plain'), 415, -32600, 'unsupported_media_type'],
    ];
    for (const [res, status, code, apiCode] of cases) {
      expect(res.status).toBe(status);
      expect(await res.json()).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code, message: expect.any(String), data: { code: apiCode } },
      });
    }
    // A refusal of the token stays an HTTP 401 with the API's envelope.
    const unauthorized = await app.fetch(
      new Request('http://edgeplan.test/mcp', { method: 'POST', body: '{' }),
      { ...env, ALLOW_ANONYMOUS: 'false', API_TOKEN: 'secret' },
    );
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.json()).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('answers JSON that is not a JSON-RPC message with -32600 Invalid Request saying what is wrong', async () => {
    const cases: [unknown, string][] = [
      [{ jsonrpc: '2.0', id: 1 }, 'a message needs a "method"'],
      [{ jsonrpc: '1.0', id: 1, method: 'ping' }, '"jsonrpc" must be "2.0" (got "1.0")'],
      [{ jsonrpc: '2.0', id: null, method: 'ping' }, '"id" must be a string or a number (got null)'],
      [
        { jsonrpc: '2.0', id: 1, method: 'tools/list', params: [1] },
        '"params" must be an object (got an array)',
      ],
      ['hello', 'a message is an object'],
      [[{ jsonrpc: '2.0', id: 1, method: 'ping' }, 7], '(message 1 of the batch): a message is an object'],
    ];
    for (const [body, why] of cases) {
      const res = await rpc(JSON.stringify(body));
      expect(res.status).toBe(400);
      // It was -32700 Parse error: that is for text that is not JSON.
      expect(await res.json()).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringContaining(why) },
      });
    }
  });

  it('answers a message the SDK’s schema refuses with -32600 naming why, not -32700 Parse error', async () => {
    const cases: [unknown, string][] = [
      [{ jsonrpc: '2.0', id: 1.5, method: 'ping' }, 'id: '],
      [{ jsonrpc: '2.0', id: 1, method: 'ping', foo: 1 }, '"foo"'],
      [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: 'x' } }, 'params._meta: '],
      [{ jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: 5 } }, 'params._meta: '],
      [{ jsonrpc: '2.0', id: 1, error: { code: 'x' } }, 'error.'],
    ];
    for (const [body, why] of cases) {
      const res = await rpc(JSON.stringify(body));
      expect(res.status, JSON.stringify(body)).toBe(400);
      const answer = await res.json<Json>();
      expect(answer, JSON.stringify(body)).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600 },
      });
      expect(answer.error.message, JSON.stringify(body)).toContain(why);
    }
  });

  it('answers params its method’s schema refuses with -32602 in one line, not -32603 Internal error', async () => {
    const cases: [unknown, string][] = [
      [{ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }, 'params.protocolVersion: '],
      [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 5 } }, 'params.cursor: '],
      [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'list_tools', arguments: {}, task: 5 },
        },
        'params.task: ',
      ],
    ];
    for (const [body, why] of cases) {
      const res = await rpc(JSON.stringify(body));
      expect(res.status, JSON.stringify(body)).toBe(200);
      const answer = await res.json<Json>();
      expect(answer.error.code, JSON.stringify(body)).toBe(-32602);
      expect(answer.error.message).toMatch(/^Invalid params: /);
      expect(answer.error.message).toContain(why);
      expect(answer.error.message).not.toContain('\n');
    }
  });

  it('answers a batch, refusing its malformed tools/call with -32602 beside the others’ results', async () => {
    const res = await rpc(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 5 } },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_run', arguments: 'run_1' } },
        { jsonrpc: '2.0', id: 4, method: 'ping' },
      ]),
    );
    expect(res.status).toBe(200);
    const answers = await res.json<{ id: number; result?: Json; error?: Json }[]>();
    const byId = Object.fromEntries(answers.map((a) => [a.id, a]));
    expect(Object.keys(byId).sort()).toEqual(['1', '2', '3', '4']);
    expect((byId[1]!.result!.tools as Json[]).length).toBeGreaterThan(0);
    // The SDK answered these -32603 Internal error, its schema's issues as the message.
    expect(byId[2]!.error).toEqual({
      code: -32602,
      message: 'Invalid params: params.name must be a tool name (got a number)',
    });
    expect(byId[3]!.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('params.arguments'),
    });
    expect(byId[4]!.result).toEqual({});
  });

  it('refuses a batch over 100 messages as a whole, malformed messages or not, answering none of them', async () => {
    const malformed = (i: number) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 5 } });
    const ping = (i: number) => ({ jsonrpc: '2.0', id: i, method: 'ping' });
    for (const message of [malformed, ping]) {
      const res = await rpc(JSON.stringify(Array.from({ length: 101 }, (_, i) => message(i))));
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32600,
          message:
            'Invalid Request: a batch holds at most 100 messages (got 101): send the others in another request',
        },
        id: null,
      });
    }
    // 100 is a batch: each malformed message answered on its own.
    const at = await rpc(JSON.stringify(Array.from({ length: 100 }, (_, i) => malformed(i))));
    expect(at.status).toBe(200);
    expect(await at.json<Json[]>()).toHaveLength(100);
  });

  it('refuses GET and DELETE (no sessions, no standalone stream)', async () => {
    const res = await app.fetch(new Request('http://edgeplan.test/mcp'), env);
    expect(res.status).toBe(405);
    expect(res.headers.get('Allow')).toBe('POST');
  });

  it('refuses every other method with Allow: POST alone and a JSON-RPC error, body or not', async () => {
    for (const method of ['PUT', 'PATCH', 'OPTIONS', 'HEAD', 'DELETE', 'PROPFIND']) {
      const body = method === 'PUT' || method === 'PATCH' ? '{"jsonrpc":"2.0","id":1,"method":"ping"}' : null;
      const res = await app.fetch(
        new Request('http://edgeplan.test/mcp', {
          method,
          body,
          headers: { 'Content-Type': 'application/json' },
        }),
        env,
      );
      expect([method, res.status, res.headers.get('Allow')]).toEqual([method, 405, 'POST']);
      const text = await res.text();
      expect(method === 'HEAD' || JSON.parse(text).error.code === -32000).toBe(true);
    }
  });

  it('says a refusal of the route’s query or body as one of the tool’s arguments', async () => {
    const client = await connect();
    const listed = await call(client, 'list_runs', { limit: 0 });
    const started = await call(client, 'start_run', {
      plan: { goal: 'g', steps: [echo('a', { n: 1 })] },
      config: { max_parallel: 0 },
    });
    for (const [refused, field] of [
      [listed, 'limit'],
      [started, 'config.max_parallel'],
    ] as const) {
      expect(refused.isError).toBe(true);
      const error = (refused.structuredContent as Json).error as Json;
      expect(error.code).toBe('invalid_request');
      expect(error.message).toMatch(
        new RegExp(`^Invalid arguments: ${field.replace('.', '\\.')}: must be at least 1`),
      );
      // The text block says the same as the structured content.
      expect(JSON.parse((refused.content as { text: string }[])[0]!.text)).toEqual(refused.structuredContent);
    }
    await client.close();
  });
});
