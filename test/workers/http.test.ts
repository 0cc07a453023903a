import { env, exports } from 'cloudflare:workers';
import { createRoute, z } from '@hono/zod-openapi';
import { describe, expect, it, vi } from 'vitest';
import { EdgeplanError } from '../../src/errors';
import { createApp, MAX_BODY_BYTES } from '../../src/http/app';

type ErrorJson = { error: { code: string; message: string; details?: Record<string, unknown> } };
type FindingJson = { code: string; message: string; step_id?: string; path?: (string | number)[] };
type ValidationJson = {
  valid: boolean;
  errors: FindingJson[];
  plan?: { id: string; strategy: string };
  estimates?: { step_count: number; critical_path: { steps: string[] } };
};
type ToolJson = { name: string; input_schema: unknown };

const BASE = 'http://edgeplan.test';

/** Through the real Worker entrypoint, with the test bindings (DEMO_TOOLS=true, no API_TOKEN). */
function send(path: string, init?: RequestInit): Promise<Response> {
  return exports.default.fetch(new Request(`${BASE}${path}`, init));
}

function postJson(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return send(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** The JSON body, after checking it is JSON; the type is what the test expects to find. */
async function json<T = ErrorJson>(res: Response): Promise<T> {
  expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
  return res.json<T>();
}

const codes = (body: ValidationJson) => body.errors.map((e) => e.code);

describe('error envelope', () => {
  it('answers an unknown route with a JSON 404 naming the method and path', async () => {
    const res = await send('/x');
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ error: { code: 'not_found', message: 'No route for GET /x' } });
  });

  it('answers an unknown route with 404 even when its body is not JSON', async () => {
    const res = await send('/v1/nope', {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: 'hi',
    });
    expect(res.status).toBe(404);
    expect((await json(res)).error.message).toBe('No route for POST /v1/nope');
  });

  it('names the route a path one segment off likely meant', async () => {
    const cases: [string, string, string][] = [
      ['POST', '/v1/mcp', 'No route for POST /v1/mcp (did you mean /mcp?)'],
      ['GET', '/api/v1/runs', 'No route for GET /api/v1/runs (did you mean /v1/runs?)'],
      ['GET', '/runs', 'No route for GET /runs (did you mean /v1/runs?)'],
      ['GET', '/v1/runs/run_abc/nope', 'No route for GET /v1/runs/run_abc/nope'],
    ];
    for (const [method, path, message] of cases) {
      const res = await send(path, { method });
      expect(res.status).toBe(404);
      expect((await json(res)).error.message).toBe(message);
    }
  });

  it('answers a route with the wrong method 405 method_not_allowed, with Allow', async () => {
    const cases: [string, string, string][] = [
      ['PUT', '/v1/runs', 'GET, HEAD, POST'],
      ['PUT', '/v1/runs/run_0123456789abcdef0123456789abcdef', 'DELETE, GET, HEAD'],
      ['PATCH', '/v1/plans', 'POST'],
      ['GET', '/v1/runs/run_abc/cancel', 'POST'],
      ['PUT', '/health', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await send(path, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('Allow')).toBe(allow);
      const body = await json<{ error: { code: string; message: string; details: { allow: string[] } } }>(
        res,
      );
      expect(body.error.code).toBe('method_not_allowed');
      expect(body.error.message).toBe(`${path} takes ${allow}, not ${method}`);
      expect(body.error.details.allow).toEqual(allow.split(', '));
    }
    // No route at all stays a 404.
    expect((await send('/v1/nope', { method: 'PUT' })).status).toBe(404);
    expect((await send('/v1/runs/x/y/z', { method: 'GET' })).status).toBe(404);
  });

  it('routes a path with a trailing slash as the path without it', async () => {
    // It answered 405 "/v1/runs/ takes GET, HEAD, POST, not GET".
    const list = await send('/v1/runs/?limit=1');
    expect(list.status).toBe(200);
    expect(await json(list)).toHaveProperty('runs');
    const tools = await json<{ tools: unknown[] }>(await send('/v1/tools/'));
    expect(tools.tools.length).toBeGreaterThan(0);
    const run = await send('/v1/runs/run_0123456789abcdef0123456789abcdef/');
    expect(run.status).toBe(404);
    expect((await json(run)).error.code).toBe('not_found');
    const wrong = await send('/v1/runs/', { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('Allow')).toBe('GET, HEAD, POST');
  });

  it('answers malformed JSON with 400 invalid_json saying where parsing failed', async () => {
    const res = await send('/v1/plans/validate', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"plan": {"steps": [}',
    });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error.code).toBe('invalid_json');
    // workerd's V8 quotes the text around the failure rather than giving an offset.
    expect(body.error.message).toMatch(/^Request body is not valid JSON: /);
    expect(body.error.message).toContain('"steps": [}');
  });

  it('treats an empty JSON body as no body: a route that needs one says what to send', async () => {
    const res = await send('/v1/plans/validate', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toMatch(/^This request needs a JSON body: send \{"plan": …\}/);
  });

  it('treats an empty JSON body as no body: a route whose body is optional accepts it', async () => {
    const app = createApp();
    const poke = createRoute({
      method: 'post',
      path: '/v1/poke',
      request: {
        body: { content: { 'application/json': { schema: z.object({ reason: z.string().optional() }) } } },
      },
      responses: {
        200: {
          description: 'ok',
          content: { 'application/json': { schema: z.object({ reason: z.string() }) } },
        },
      },
    });
    app.openapi(poke, (c) => c.json({ reason: c.req.valid('json').reason ?? 'none' }, 200));
    const res = await app.fetch(
      new Request(`${BASE}/v1/poke`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '',
      }),
      env,
    );
    expect(res.status).toBe(200);
    expect(await json<{ reason: string }>(res)).toEqual({ reason: 'none' });
  });

  it('answers a non-JSON content type with 415 naming the type received', async () => {
    const res = await send('/v1/plans/validate', {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: '{"plan": {"steps": []}}',
    });
    expect(res.status).toBe(415);
    const body = await json(res);
    expect(body.error.code).toBe('unsupported_media_type');
    expect(body.error.message).toContain('application/json');
    expect(body.error.message).toContain('text/plain');
  });

  it('accepts a JSON content type with a charset parameter', async () => {
    const res = await send('/v1/plans/validate', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ config: {} }),
    });
    // Past the content-type and JSON checks: the body reached the request schema.
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toContain('plan: Required');
  });

  it('answers a body over the limit with 413 payload_too_large', async () => {
    const res = await send('/v1/plans/validate', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ plan: { goal: 'x'.repeat(MAX_BODY_BYTES) } }),
    });
    expect(res.status).toBe(413);
    const body = await json(res);
    expect(body.error.code).toBe('payload_too_large');
    expect(body.error.message).toContain(String(MAX_BODY_BYTES));
  });

  it('counts a streamed body without Content-Length against the limit too', async () => {
    const app = createApp({ maxBodyBytes: 1024 });
    const chunk = new TextEncoder().encode('x'.repeat(600));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(chunk);
        controller.enqueue(chunk);
        controller.close();
      },
    });
    const res = await app.fetch(
      new Request(`${BASE}/v1/plans/validate`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: stream,
        // @ts-expect-error -- `duplex` is required for stream bodies by the fetch spec, absent from the types
        duplex: 'half',
      }),
      env,
    );
    expect(res.status).toBe(413);
    expect((await json(res)).error.code).toBe('payload_too_large');
  });

  it('answers a body that fails the request schema with 400 invalid_request naming the field', async () => {
    const res = await postJson('/v1/plans/validate', { plan: { steps: [] }, config: { max_parallel: 0 } });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toBe('Invalid request body: config.max_parallel: must be at least 1');
    expect(body.error.details).toEqual({
      target: 'json',
      issues: [{ path: ['config', 'max_parallel'], message: 'must be at least 1', code: 'too_small' }],
    });
  });

  it("says a setting outside its choices in plain words, not zod's", async () => {
    const res = await postJson('/v1/plans/validate', {
      plan: { steps: [] },
      config: { execution_mode: 'fast' },
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toBe(
      'Invalid request body: config.execution_mode: must be one of "sequential", "parallel" or "adaptive"',
    );
  });

  it('names a config field given by its alias by the canonical name', async () => {
    const res = await postJson('/v1/plans/validate', {
      plan: { steps: [] },
      config: { max_concurrent: 'lots' },
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toContain('config.max_parallel');
  });

  it('answers a body without a plan with 400 invalid_request naming plan', async () => {
    const res = await postJson('/v1/plans/validate', { config: {} });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toContain('plan: Required');
  });

  it('refuses a goal beside a plan whose own goal differs with 400 invalid_request, creating no run', async () => {
    const plan = { goal: 'Translate the notes', steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] };
    const res = await postJson(
      '/v1/runs',
      { goal: 'Summarise the notes', plan },
      { 'Idempotency-Key': 'goals-1' },
    );
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toBe(
      '"goal" ("Summarise the notes") and the plan\'s own "goal" ("Translate the notes") differ: send one of them, or the same text in both',
    );
    // Nothing was made of it: the key is free for the request meant.
    const same = await postJson(
      '/v1/runs',
      { goal: 'Translate the notes', plan },
      { 'Idempotency-Key': 'goals-1' },
    );
    expect(same.status).toBe(201);
    expect(same.headers.get('Idempotent-Replayed')).toBeNull();
  });

  it('answers an unexpected exception with 500 internal, logging it without leaking its message', async () => {
    const app = createApp();
    app.get('/boom', () => {
      throw new Error('database password is hunter2');
    });
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const res = await app.fetch(new Request(`${BASE}/boom`), env);
    expect(res.status).toBe(500);
    const body = await json(res);
    expect(body.error.code).toBe('internal');
    expect(JSON.stringify(body)).not.toContain('hunter2');
    // One JSON line an operator can search by event (src/log.ts).
    expect(log).toHaveBeenCalledTimes(1);
    expect(JSON.parse(String(log.mock.calls[0]![0]))).toMatchObject({
      level: 'error',
      event: 'unhandled_error',
      method: 'GET',
      path: '/boom',
      code: 'internal',
      error: { name: 'Error', message: 'database password is hunter2', stack: expect.any(String) },
    });
    log.mockRestore();
  });

  it('answers a thrown EdgeplanError with the status its code maps to, keeping code, message and details', async () => {
    const app = createApp();
    app.get('/busy', () => {
      throw new EdgeplanError('conflict', 'Run run_1 is completed; it cannot be approved', {
        details: { status: 'completed' },
      });
    });
    const res = await app.fetch(new Request(`${BASE}/busy`), env);
    expect(res.status).toBe(409);
    expect(await json(res)).toEqual({
      error: {
        code: 'conflict',
        message: 'Run run_1 is completed; it cannot be approved',
        details: { status: 'completed' },
      },
    });
  });
});

describe('bearer auth', () => {
  const app = createApp();
  const withToken = { ...env, API_TOKEN: 's3cret-token' };
  const get = (path: string, headers: Record<string, string> = {}) =>
    app.fetch(new Request(`${BASE}${path}`, { headers }), withToken);

  it('rejects a /v1 request without a token with 401 and a Bearer challenge', async () => {
    const res = await get('/v1/tools');
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toMatch(/^Bearer realm="edgeplan"/);
    const body = await json(res);
    expect(body.error.code).toBe('unauthorized');
    expect(body.error.message).toContain('Authorization');
  });

  it('rejects a wrong token with 401 invalid_token', async () => {
    const res = await get('/v1/tools', { Authorization: 'Bearer s3cret-tokem' });
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toContain('error="invalid_token"');
    expect((await json(res)).error.code).toBe('unauthorized');
  });

  it('rejects a token of a different length and a non-Bearer scheme', async () => {
    expect((await get('/v1/tools', { Authorization: 'Bearer s3' })).status).toBe(401);
    expect((await get('/v1/tools', { Authorization: 'Basic czNjcmV0LXRva2Vu' })).status).toBe(401);
  });

  it('accepts the right token', async () => {
    const res = await get('/v1/tools', { Authorization: 'Bearer s3cret-token' });
    expect(res.status).toBe(200);
  });

  it('checks the token before reading the body', async () => {
    const res = await app.fetch(
      new Request(`${BASE}/v1/plans/validate`, { method: 'POST', body: '{not json' }),
      withToken,
    );
    expect(res.status).toBe(401);
  });

  it('keeps /health and /openapi.json public', async () => {
    expect((await get('/health')).status).toBe(200);
    expect((await get('/openapi.json')).status).toBe(200);
  });

  it('is off without API_TOKEN when ALLOW_ANONYMOUS=true (as the test Worker has it)', async () => {
    expect((await send('/v1/tools')).status).toBe(200);
  });
});

describe('GET /health', () => {
  it('reports ok', async () => {
    const res = await send('/health');
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ ok: true });
  });
});

describe('POST /v1/plans/validate with the import formats of POST /v1/runs', () => {
  type ImportedJson = ValidationJson & {
    errors: (FindingJson & { line?: number })[];
    plan?: { steps: { id: string; output_path?: string }[] };
    imported?: {
      format: string;
      plan: { goal?: string; steps: { id: string; output_path?: string }[] };
      lines?: Record<string, number>;
      state_keys?: string[];
    };
  };
  const validate = async (body: unknown) => {
    const res = await postJson('/v1/plans/validate', body);
    return { status: res.status, body: await json<ImportedJson & ErrorJson>(res) };
  };
  const TEA = `name: greeter
state_schema:
  topic: str
  name: str
nodes:
  - name: plan
    uses: plan.decompose
    with: { goal: "{{ state.topic }}" }
  - name: say
    uses: demo.echo
    with: { plan: "{{ state.plan }}", who: "{{ state.name }}" }
`;

  it('validates a TEA workflow as converted and shows what it became; the initial state is listed', async () => {
    const { status, body } = await validate({ format: 'tea-yaml', source: TEA });
    expect(status).toBe(200);
    expect(body.errors).toEqual([]);
    expect(body.valid).toBe(true);
    // TEA merges a result without output: into state.
    expect(body.plan?.steps.map((s) => [s.id, s.output_path])).toEqual([
      ['plan', 'state'],
      ['say', 'state'],
    ]);
    expect(body.imported).toEqual({
      format: 'tea-yaml',
      plan: expect.objectContaining({ goal: 'greeter', steps: expect.any(Array) }),
      lines: { plan: 6, say: 9 },
      state_keys: ['topic', 'name'],
    });
    // The templates are kept as written and rendered when the node runs.
    expect(body.imported!.plan).toMatchObject({
      steps: [{}, { id: 'say', parameters: {}, dependencies: ['plan'] }],
      metadata: { tea: { params: { say: { plan: '{{ state.plan }}', who: '{{ state.name }}' } } } },
    });
  });

  it('checks the initial state when an input is sent, with the runs route’s 422 and body', async () => {
    const body = { format: 'tea-yaml', source: TEA, input: { topic: 'edge', name: 7 } };
    const validated = await validate(body);
    const run = await postJson('/v1/runs', { ...body, config: { mode: 'lazy' } });
    expect(validated.status).toBe(422);
    expect(run.status).toBe(422);
    expect(validated.body).toEqual(await json(run));
    expect(validated.body.error.code).toBe('invalid_plan');
    expect(validated.body.error.details).toMatchObject({
      format: 'tea-yaml',
      errors: [
        { code: 'state_schema', line: 4, message: expect.stringContaining('state.name should be str') },
      ],
    });
    const complete = await validate({ ...body, input: { topic: 'edge', name: 'Ada' } });
    expect(complete.status).toBe(200);
    expect(complete.body.valid).toBe(true);
  });

  it('refuses a plan whose {{ input.… }} a parameter cannot take, before it runs or waits for approval', async () => {
    const plan = { steps: [{ id: 'wait', action: 'demo.sleep', parameters: { ms: '{{ input.ms }}' } }] };
    const message =
      'Step "wait": {{ input.ms }} is a string but parameters.ms of tool demo.sleep expects a number (as the run\'s input gives it)';
    const run = await postJson('/v1/runs', {
      plan,
      input: { ms: '5' },
      config: { require_plan_approval: true },
    });
    expect(run.status).toBe(422);
    const refused = await json(run);
    expect(refused.error.code).toBe('invalid_plan');
    expect(refused.error.details).toMatchObject({ errors: [{ code: 'bad_reference', message }] });
    const validated = await postJson('/v1/plans/validate', { plan, input: { ms: '5' } });
    expect((await json<ValidationJson>(validated)).errors).toMatchObject([
      { code: 'bad_reference', message },
    ]);
    // The plan alone says nothing of an input it has not seen; the right input runs.
    expect((await json<ValidationJson>(await postJson('/v1/plans/validate', { plan }))).valid).toBe(true);
    expect((await postJson('/v1/runs', { plan, input: { ms: 5 } })).status).toBe(201);
  });

  it('refuses a run whose plan reads an input it was not given, rather than skip the step and complete', async () => {
    const plan = {
      steps: [
        { id: 'a', action: 'demo.echo', parameters: { text: '{{ input.alert_id }}' } },
        { id: 'b', action: 'demo.echo', parameters: { text: 'team {{ input.team }}' } },
      ],
    };
    const run = await postJson('/v1/runs', { plan, input: { alert_id: 'A-1' } });
    expect(run.status).toBe(422);
    expect((await json(run)).error.details).toMatchObject({
      errors: [
        {
          code: 'bad_reference',
          step_id: 'b',
          path: ['parameters', 'text'],
          message:
            'Step "b": {{ input.team }} reads input.team, which the run\'s input does not have (it has alert_id): ' +
            "give it in the run's input (edgeplan run … --input team=…), or the step could never run",
        },
      ],
    });
    expect((await postJson('/v1/runs', { plan, input: { alert_id: 'A-1', team: 'sre' } })).status).toBe(201);
  });

  it('refuses a run whose input gives a parameter a value its tool refuses, naming the reference', async () => {
    const plan = {
      steps: [
        { id: 'wait', action: 'demo.sleep', parameters: { ms: '{{ input.ms }}' } },
        {
          id: 'get',
          action: 'http.request',
          parameters: { url: 'https://example.com', method: '{{ input.m }}' },
        },
      ],
    };
    const run = await postJson('/v1/runs', { plan, input: { ms: -5, m: 'FETCH' } });
    expect(run.status).toBe(422);
    expect((await json(run)).error.details).toMatchObject({
      errors: [
        {
          code: 'invalid_parameters',
          step_id: 'wait',
          path: ['parameters', 'ms'],
          message:
            'Step "wait": parameters.ms: must be at least 0 (tool demo.sleep) — {{ input.ms }} reads it from the run\'s input',
        },
        { code: 'invalid_parameters', step_id: 'get', path: ['parameters', 'method'] },
      ],
    });
    const checked = await postJson('/v1/plans/validate', { plan, input: { ms: -5, m: 'GET' } });
    expect((await json<ValidationJson>(checked)).errors.map((e) => e.path)).toEqual([['parameters', 'ms']]);
    expect((await postJson('/v1/runs', { plan, input: { ms: 1, m: 'GET' } })).status).toBe(201);
  });

  it('answers a source that does not convert with 422 invalid_plan, every problem with its line', async () => {
    const { status, body } = await validate({
      format: 'tea-yaml',
      source: 'nodes:\n  - name: a\n    run: x\n  - name: b\n    with: {}\n',
    });
    expect(status).toBe(422);
    expect(body.error.code).toBe('invalid_plan');
    expect(body.error.details).toMatchObject({
      format: 'tea-yaml',
      errors: [
        { code: 'unsupported_node', line: 3 },
        { code: 'bad_node', line: 4 },
      ],
    });
  });

  it('answers request-shape mistakes with 400 invalid_request, as the runs route does', async () => {
    for (const shape of [
      { format: 'llmcompiler' },
      { source: '1. demo.echo()' },
      { format: 'llmcompiler', source: '1. demo.echo()', plan: { steps: [] } },
      { format: 'tea-yaml', source: TEA, input: 'Ada' },
    ]) {
      const { status, body } = await validate(shape);
      expect(status).toBe(400);
      expect(body.error.code).toBe('invalid_request');
      const run = await postJson('/v1/runs', shape);
      expect(body).toEqual(await json(run));
    }
  });

  it('validates an LLMCompiler plan: findings carry the step’s source line', async () => {
    const { status, body } = await validate({
      format: 'llmcompiler',
      source: 'Thought: first\n1. demo.echo(x=1)\n2. no.such.tool(y=$1)\n3. join()',
    });
    expect(status).toBe(200);
    expect(body.valid).toBe(false);
    expect(body.errors).toEqual([expect.objectContaining({ code: 'unknown_tool', step_id: '2', line: 3 })]);
    expect(body.imported).toMatchObject({ format: 'llmcompiler', lines: { '1': 2, '2': 3 } });
    expect(body.imported!.plan.steps.map((s) => s.id)).toEqual(['1', '2']);
  });

  it('validates a seed-004 _tool array sent as the plan; a native plan has no imported part', async () => {
    const { status, body } = await validate({
      plan: [
        { _tool: 'demo.echo', text: '†input.name', _outputPath: '†state.greeting' },
        { _tool: 'demo.echo', text: '†state.greeting.text' },
      ],
    });
    expect(status).toBe(200);
    expect(body.valid).toBe(true);
    expect(body.plan?.steps.map((s) => [s.id, s.output_path])).toEqual([
      ['demo_echo_1', 'state.greeting'],
      ['demo_echo_2', undefined],
    ]);
    expect(body.imported).toMatchObject({
      format: 'tool-calls',
      plan: { steps: [{ id: 'demo_echo_1' }, {}] },
    });
    const bad = await validate({ plan: [{ text: 'no tool' }] });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toMatchObject({
      format: 'tool-calls',
      errors: [{ code: 'missing_tool' }],
    });
    const native = await validate({ plan: { steps: [{ id: 'a', action: 'demo.echo' }] } });
    expect(native.body.valid).toBe(true);
    expect(native.body).not.toHaveProperty('imported');
  });
});

describe('GET /openapi.json', () => {
  const planRef = { $ref: '#/components/schemas/Plan' };
  const document = async () => json<Record<string, unknown>>(await send('/openapi.json'));

  it('is an OpenAPI 3.1 document titled edgeplan listing the v1 routes', async () => {
    expect(await document()).toMatchObject({
      openapi: '3.1.0',
      info: { title: 'edgeplan' },
      paths: {
        '/health': { get: expect.any(Object) },
        '/v1/tools': { get: { security: [{ bearerAuth: [] }] } },
        '/v1/plans/validate': { post: { security: [{ bearerAuth: [] }] } },
      },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
    });
  });

  it('describes the Plan schema, recursion through sub-plans included', async () => {
    const doc = await document();
    expect(doc).toMatchObject({
      components: {
        schemas: {
          Plan: {
            type: 'object',
            required: ['steps'],
            properties: { steps: { type: 'array', items: { $ref: '#/components/schemas/PlanStep' } } },
          },
          PlanStep: { properties: { id: expect.any(Object), action: expect.any(Object) } },
        },
      },
      paths: {
        '/v1/plans/validate': {
          post: {
            requestBody: {
              content: {
                'application/json': {
                  // `plan`, or an import (`format` with `source`) instead of it.
                  schema: {
                    properties: {
                      // A Plan, or a seed-004 call list.
                      plan: { anyOf: expect.arrayContaining([planRef]) as unknown },
                      format: { enum: ['tea-yaml', 'llmcompiler'] },
                      source: { type: 'string' },
                    },
                  },
                },
              },
            },
          },
        },
      },
    });
    expect(doc).toMatchObject({
      components: {
        schemas: { PlanStep: { properties: { subplan: { oneOf: [planRef, { type: 'null' }] } } } },
      },
    });
  });

  it('documents error responses with the error envelope', async () => {
    const errorRef = { $ref: '#/components/schemas/Error' };
    expect(await document()).toMatchObject({
      paths: {
        '/v1/plans/validate': {
          post: {
            responses: {
              400: { content: { 'application/json': { schema: errorRef } } },
              401: { content: { 'application/json': { schema: errorRef } } },
              413: { content: { 'application/json': { schema: errorRef } } },
              415: { content: { 'application/json': { schema: errorRef } } },
            },
          },
        },
      },
      components: { schemas: { Error: { properties: { error: { required: ['code', 'message'] } } } } },
    });
  });
});

describe('GET /v1/tools', () => {
  it('lists the registered tools with JSON schemas, the demo pack included when DEMO_TOOLS=true', async () => {
    const res = await send('/v1/tools');
    expect(res.status).toBe(200);
    const { tools } = await json<{ tools: ToolJson[] }>(res);
    expect(tools).toContainEqual(
      expect.objectContaining({
        name: 'demo.echo',
        description: expect.any(String),
        version: expect.any(String),
        idempotent: expect.any(Boolean),
        deterministic: expect.any(Boolean),
        input_schema: expect.objectContaining({ type: 'object' }),
      }),
    );
    const names = tools.map((t) => t.name);
    expect(names).toEqual([...names].sort());
  });
});

describe('POST /v1/plans/validate', () => {
  const echo = (id: string, dependencies?: string[]) => ({
    id,
    action: 'demo.echo',
    parameters: { text: id },
    ...(dependencies ? { dependencies } : {}),
  });
  const validate = async (body: unknown) => json<ValidationJson>(await postJson('/v1/plans/validate', body));

  it('accepts a valid plan and returns it normalised with estimates', async () => {
    const res = await postJson('/v1/plans/validate', {
      plan: { goal: 'say hi twice', steps: [echo('a', []), echo('b', ['a'])] },
    });
    expect(res.status).toBe(200);
    const body = await json<ValidationJson>(res);
    expect(body.errors).toEqual([]);
    expect(body.valid).toBe(true);
    expect(body.plan?.id).toMatch(/^plan_[0-9a-f]{32}$/);
    expect(body.plan?.strategy).toBe('manual');
    expect(body.estimates?.step_count).toBe(2);
    expect(body.estimates?.critical_path.steps).toEqual(['a', 'b']);
  });

  it('reports a cycle naming the whole cycle, as a finding and not a request error', async () => {
    const res = await postJson('/v1/plans/validate', {
      plan: { steps: [echo('a', ['b']), echo('b', ['a'])] },
    });
    expect(res.status).toBe(200);
    const body = await json<ValidationJson>(res);
    expect(body.valid).toBe(false);
    expect(body.errors).toContainEqual(
      expect.objectContaining({
        code: 'cycle',
        message: expect.stringMatching(/^Cycle detected: (a -> b -> a|b -> a -> b)$/),
      }),
    );
  });

  it('reports an unknown dependency as Unknown subtask with its step', async () => {
    const body = await validate({ plan: { steps: [echo('a', ['x'])] } });
    expect(body.valid).toBe(false);
    expect(body.errors).toContainEqual(
      expect.objectContaining({
        code: 'unknown_dependency',
        message: expect.stringContaining('Unknown subtask: x'),
        step_id: 'a',
      }),
    );
  });

  it('reports every finding at once', async () => {
    const body = await validate({
      plan: { steps: [echo('a', ['x']), { id: 'b', action: 'no.such.tool', dependencies: [] }] },
    });
    expect(codes(body)).toEqual(expect.arrayContaining(['unknown_dependency', 'unknown_tool']));
  });

  it('reports a plan that is not plan-shaped as a schema finding, not a 400', async () => {
    const res = await postJson('/v1/plans/validate', { plan: { steps: 'nope' } });
    expect(res.status).toBe(200);
    const body = await json<ValidationJson>(res);
    expect(body.valid).toBe(false);
    expect(codes(body)).toContain('schema');
    expect(body.plan).toBeUndefined();
  });

  it('applies limits from the config, aliases included', async () => {
    const body = await validate({
      plan: { steps: [echo('a', []), echo('b', [])] },
      config: { max_subtasks: 1 },
    });
    expect(codes(body)).toContain('too_many_steps');
  });

  it('requires dependency lists only when the caller sets require_dependencies', async () => {
    const plan = { steps: [echo('a')] };
    expect(codes(await validate({ plan }))).not.toContain('missing_dependencies');
    expect(codes(await validate({ plan, config: { require_dependencies: true } }))).toContain(
      'missing_dependencies',
    );
  });
});
