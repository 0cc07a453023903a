import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import type { AnyTool } from '../../src/executor/registry';
import { executeTool, type ExecuteContext, type StepOutcome } from '../../src/executor/run-step';
import { readDemoCounter } from '../../src/executor/tools/demo-counters-client';
import { createToolRegistry } from '../../src/executor/tools/index';

const registry = createToolRegistry(env);
const tool = (name: string): AnyTool => {
  const t = registry.get(name);
  if (!t) throw new Error(`tool ${name} is not registered`);
  return t;
};
const uid = () => crypto.randomUUID();

function ctx(over: Partial<ExecuteContext> & { vars?: Record<string, unknown> } = {}): ExecuteContext {
  const { vars, ...rest } = over;
  return {
    runId: 'run_t',
    stepId: 'step',
    attempt: 1,
    idempotencyKey: `run_t:step:${uid()}`,
    env: { ...env, ...vars },
    timeoutMs: 5_000,
    ...rest,
  };
}

const run = (name: string, params: Record<string, unknown>, over?: Parameters<typeof ctx>[0]) =>
  executeTool(tool(name), params, ctx(over));

function failure(outcome: StepOutcome) {
  if (outcome.success) throw new Error(`expected a failure, got ${JSON.stringify(outcome.output)}`);
  return outcome.error;
}

function output(outcome: StepOutcome): unknown {
  if (!outcome.success) throw new Error(`expected success, got ${JSON.stringify(outcome.error)}`);
  return outcome.output;
}

/** A scripted fetch: records every request and answers with `respond`. */
function scriptedFetch(respond: (req: Request) => Response | Promise<Response>) {
  const requests: Request[] = [];
  const fn = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    requests.push(req.clone());
    return respond(req);
  });
  return { fetch: fn as unknown as typeof fetch, requests, calls: fn };
}

describe('tool registry', () => {
  it('registers the built-in tools always and the demo pack only when DEMO_TOOLS is "true"', () => {
    expect(registry.names()).toEqual(
      expect.arrayContaining([
        'http.request',
        'llm.call',
        'demo.echo',
        'demo.sleep',
        'demo.flaky',
        'demo.counter',
      ]),
    );
    const plain = createToolRegistry({ ...env, DEMO_TOOLS: 'false' });
    expect(plain.names()).toEqual(['agent.message', 'http.request', 'llm.call']);
  });

  it('describes every tool with a JSON schema for its input', () => {
    for (const d of registry.describe()) expect(d.input_schema).toBeTypeOf('object');
  });
});

describe('demo tools', () => {
  it('demo.echo returns its parameters', async () => {
    expect(output(await run('demo.echo', { a: 1, b: ['x'] }))).toEqual({ a: 1, b: ['x'] });
  });

  it('demo.counter increments once per idempotency key even when the same attempt is delivered twice', async () => {
    const key = `c-${uid()}`;
    const c = ctx({ idempotencyKey: 'run_t:charge:1' });
    const first = output(await executeTool(tool('demo.counter'), { key }, c));
    const second = output(await executeTool(tool('demo.counter'), { key }, c));
    expect(first).toEqual({ key, value: 1 });
    expect(second).toEqual({ key, value: 1 });
    expect(await readDemoCounter(env, key)).toBe(1);
  });

  it('demo.counter applies concurrent deliveries of one attempt once', async () => {
    const key = `c-${uid()}`;
    const c = ctx({ idempotencyKey: 'run_t:charge:1' });
    const outcomes = await Promise.all([1, 2, 3].map(() => executeTool(tool('demo.counter'), { key }, c)));
    expect(outcomes.map(output)).toEqual([1, 2, 3].map(() => ({ key, value: 1 })));
    expect(await readDemoCounter(env, key)).toBe(1);
  });

  it('demo.counter increments again for a different idempotency key', async () => {
    const key = `c-${uid()}`;
    expect(output(await run('demo.counter', { key }, { idempotencyKey: 'r:s:1' }))).toEqual({
      key,
      value: 1,
    });
    expect(output(await run('demo.counter', { key }, { idempotencyKey: 'r:s:2' }))).toEqual({
      key,
      value: 2,
    });
    expect(await readDemoCounter(env, key)).toBe(2);
  });

  it('reads an untouched counter as zero', async () => {
    expect(await readDemoCounter(env, `never-${uid()}`)).toBe(0);
  });

  it('demo.flaky fails the first fail_times attempts with a retryable error, then returns the attempt count', async () => {
    const key = `f-${uid()}`;
    const first = failure(await run('demo.flaky', { fail_times: 2, key }));
    expect(first).toMatchObject({ code: 'demo_flaky', retryable: true });
    expect(first.message).toContain('attempt 1');
    expect(failure(await run('demo.flaky', { fail_times: 2, key })).message).toContain('attempt 2');
    expect(output(await run('demo.flaky', { fail_times: 2, key }))).toEqual({ attempts: 3 });
  });

  it('demo.flaky counts attempts per run and step when no key is given', async () => {
    const runId = `run_${uid()}`;
    expect(failure(await run('demo.flaky', { fail_times: 1 }, { runId, stepId: 'a' })).code).toBe(
      'demo_flaky',
    );
    expect(failure(await run('demo.flaky', { fail_times: 1 }, { runId, stepId: 'b' })).code).toBe(
      'demo_flaky',
    );
    expect(output(await run('demo.flaky', { fail_times: 1 }, { runId, stepId: 'a' }))).toEqual({
      attempts: 2,
    });
  });

  it('demo.flaky with permanent: true fails with a non-retryable error', async () => {
    expect(
      failure(await run('demo.flaky', { fail_times: 1, key: `p-${uid()}`, permanent: true })),
    ).toMatchObject({
      code: 'demo_flaky',
      retryable: false,
    });
  });

  it('demo.sleep waits and returns its value, or null without one', async () => {
    expect(output(await run('demo.sleep', { ms: 5, value: { done: true } }))).toEqual({ done: true });
    expect(output(await run('demo.sleep', { ms: 0 }))).toBeNull();
  });

  it('demo.sleep stops at the step timeout', async () => {
    expect(failure(await run('demo.sleep', { ms: 60_000 }, { timeoutMs: 20 }))).toMatchObject({
      code: 'timeout',
    });
  });

  it('fails with demo_counters_unavailable when the COUNTERS binding is missing', async () => {
    const error = failure(await run('demo.counter', { key: 'x' }, { vars: { COUNTERS: undefined } }));
    expect(error).toMatchObject({ code: 'demo_counters_unavailable', retryable: false });
  });
});

describe('http.request', () => {
  it.each([
    ['http://127.0.0.1/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://metadata.google.internal/', 'metadata'],
    ['http://10.0.0.1/', 'private-network'],
  ])('refuses %s with address_refused without sending anything', async (url, what) => {
    const f = scriptedFetch(() => new Response('secret'));
    const error = failure(await run('http.request', { url }, { fetch: f.fetch }));
    expect(error).toMatchObject({ code: 'address_refused', retryable: false });
    expect(error.message).toContain(what);
    expect(f.calls).not.toHaveBeenCalled();
  });

  it.each([
    ['http://myhost:8080/', 'myhost is a single-label host name'],
    ['http://printer.local/', 'printer.local is a name in the internal zone .local'],
    ['http://nas.home.arpa/', 'nas.home.arpa is a name in the internal zone .home.arpa'],
    ['http://db.corp.internal/', 'db.corp.internal is a name in the internal zone .internal'],
  ])('refuses the internal name in %s with name_refused without sending anything', async (url, what) => {
    const f = scriptedFetch(() => new Response('secret'));
    const error = failure(await run('http.request', { url }, { fetch: f.fetch }));
    expect(error).toMatchObject({ code: 'name_refused', retryable: false });
    expect(error.message).toContain(what);
    expect(error.message).toContain('HTTP_ALLOWLIST');
    expect(f.calls).not.toHaveBeenCalled();
  });

  it('reaches an internal name that is allowlisted', async () => {
    const f = scriptedFetch(() => new Response('pong'));
    const out = output(
      await run(
        'http.request',
        { url: 'http://myhost:8080/ping' },
        { fetch: f.fetch, vars: { HTTP_ALLOWLIST: 'myhost' } },
      ),
    );
    expect(out).toMatchObject({ status: 200, body: 'pong' });
    expect(f.requests[0]?.url).toBe('http://myhost:8080/ping');
  });

  it('refuses a host that is not on a non-empty allowlist with host_not_allowed', async () => {
    const f = scriptedFetch(() => new Response('x'));
    const error = failure(
      await run(
        'http.request',
        { url: 'https://other.test/' },
        { fetch: f.fetch, vars: { HTTP_ALLOWLIST: 'api.example.test' } },
      ),
    );
    expect(error).toMatchObject({ code: 'host_not_allowed', retryable: false });
    expect(f.calls).not.toHaveBeenCalled();
  });

  it('refuses non-http schemes and malformed URLs as invalid_url', async () => {
    expect(failure(await run('http.request', { url: 'file:///etc/passwd' }))).toMatchObject({
      code: 'invalid_url',
    });
    expect(failure(await run('http.request', { url: 'not a url' }))).toMatchObject({ code: 'invalid_url' });
  });

  it('fetches an allowlisted host and returns status, headers and the parsed JSON body', async () => {
    const f = scriptedFetch(
      () =>
        new Response(JSON.stringify({ items: [1, 2] }), {
          status: 200,
          headers: { 'content-type': 'application/json' },
        }),
    );
    const out = output(
      await run(
        'http.request',
        { url: 'https://api.example.test/items?q=1', headers: { accept: 'application/json' } },
        { fetch: f.fetch, vars: { HTTP_ALLOWLIST: 'api.example.test' } },
      ),
    );
    expect(out).toEqual({
      url: 'https://api.example.test/items?q=1',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: { items: [1, 2] },
    });
    expect(f.requests[0]?.method).toBe('GET');
    expect(f.requests[0]?.headers.get('accept')).toBe('application/json');
  });

  it('reaches a loopback address when it is explicitly allowlisted', async () => {
    const f = scriptedFetch(() => new Response('pong'));
    const out = output(
      await run(
        'http.request',
        { url: 'http://127.0.0.1:8787/ping' },
        { fetch: f.fetch, vars: { HTTP_ALLOWLIST: '127.0.0.1' } },
      ),
    );
    expect(out).toMatchObject({ status: 200, body: 'pong' });
  });

  it('sends a JSON body with a JSON content type and the attempt idempotency key', async () => {
    const f = scriptedFetch(() => new Response(null, { status: 201 }));
    const out = output(
      await run(
        'http.request',
        { url: 'https://api.example.test/orders', method: 'POST', body: { sku: 'a' } },
        { fetch: f.fetch, idempotencyKey: 'run_t:order:1' },
      ),
    );
    expect(out).toMatchObject({ status: 201, body: '' });
    const req = f.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.headers.get('content-type')).toBe('application/json');
    expect(req.headers.get('idempotency-key')).toBe('run_t:order:1');
    expect(await req.json()).toEqual({ sku: 'a' });
  });

  it('returns 4xx and 500 responses as data', async () => {
    const f = scriptedFetch(
      (req) => new Response('nope', { status: req.url.endsWith('/missing') ? 404 : 500 }),
    );
    expect(
      output(await run('http.request', { url: 'https://a.test/missing' }, { fetch: f.fetch })),
    ).toMatchObject({ status: 404, body: 'nope' });
    expect(
      output(await run('http.request', { url: 'https://a.test/broken' }, { fetch: f.fetch })),
    ).toMatchObject({ status: 500 });
  });

  it('fails with a retryable http_status on 429 and 503 unless retry_on_status says otherwise', async () => {
    const f = scriptedFetch(() => new Response('busy', { status: 503, headers: { 'retry-after': '2' } }));
    const error = failure(
      await run('http.request', { url: 'https://a.test/x?token=secret' }, { fetch: f.fetch }),
    );
    expect(error).toMatchObject({ code: 'http_status', retryable: true, retry_after_ms: 2000 });
    expect(error.message).toContain('503');
    expect(error.message).toContain('retry-after: 2');
    expect(error.message).not.toContain('secret');
    // A server's long header is cut, not carried into the trace whole.
    const long = scriptedFetch(
      () => new Response('busy', { status: 429, headers: { 'retry-after': 'x'.repeat(5000) } }),
    );
    const cut = failure(await run('http.request', { url: 'https://a.test/x' }, { fetch: long.fetch }));
    expect(cut.message).toContain(`retry-after: ${'x'.repeat(64)}…)`);
    expect(cut.message.length).toBeLessThan(300);
    const asData = await run(
      'http.request',
      { url: 'https://a.test/x', retry_on_status: [] },
      { fetch: f.fetch },
    );
    expect(output(asData)).toMatchObject({ status: 503, body: 'busy' });
  });

  it('follows redirects and re-checks every hop against the address policy', async () => {
    const f = scriptedFetch((req) =>
      req.url === 'https://a.test/start'
        ? new Response(null, { status: 302, headers: { location: '/next' } })
        : req.url === 'https://a.test/next'
          ? new Response('arrived')
          : new Response(null, {
              status: 301,
              headers: { location: 'http://169.254.169.254/latest/meta-data/' },
            }),
    );
    expect(
      output(await run('http.request', { url: 'https://a.test/start' }, { fetch: f.fetch })),
    ).toMatchObject({
      url: 'https://a.test/next',
      body: 'arrived',
    });
    const error = failure(await run('http.request', { url: 'https://a.test/evil' }, { fetch: f.fetch }));
    expect(error).toMatchObject({ code: 'address_refused' });
    expect(f.requests.map((r) => r.url)).not.toContain('http://169.254.169.254/latest/meta-data/');
  });

  it('turns a POST into a GET on a 303 and drops credentials when a redirect leaves the origin', async () => {
    const f = scriptedFetch((req) =>
      req.url === 'https://a.test/form'
        ? new Response(null, { status: 303, headers: { location: 'https://b.test/done' } })
        : new Response('ok'),
    );
    await run(
      'http.request',
      { url: 'https://a.test/form', method: 'POST', body: 'x=1', headers: { authorization: 'Bearer t' } },
      { fetch: f.fetch },
    );
    expect(f.requests[1]?.method).toBe('GET');
    expect(f.requests[1]?.headers.get('authorization')).toBeNull();
  });

  it('gives up after 5 redirects with too_many_redirects', async () => {
    let n = 0;
    const f = scriptedFetch(() => new Response(null, { status: 302, headers: { location: `/hop${++n}` } }));
    expect(
      failure(await run('http.request', { url: 'https://loop.test/' }, { fetch: f.fetch })),
    ).toMatchObject({
      code: 'too_many_redirects',
      retryable: false,
    });
    expect(f.calls).toHaveBeenCalledTimes(6);
  });

  it('truncates a body larger than max_bytes and stops reading the stream', async () => {
    let pulled = 0;
    const chunk = new Uint8Array(64 * 1024).fill(97); // "a"
    const endless = () =>
      new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled++;
          controller.enqueue(chunk);
        },
      });
    const f = scriptedFetch(() => new Response(endless(), { headers: { 'content-type': 'text/plain' } }));
    const out = output(
      await run('http.request', { url: 'https://big.test/', max_bytes: 100_000 }, { fetch: f.fetch }),
    ) as {
      body: string;
      truncated: boolean;
    };
    expect(out.truncated).toBe(true);
    expect(out.body).toHaveLength(100_000);
    expect(pulled).toBeLessThan(10);
  });

  it('truncates at the 1 MiB default', async () => {
    const big = 'x'.repeat(2 * 1024 * 1024);
    const f = scriptedFetch(() => new Response(big));
    const out = output(await run('http.request', { url: 'https://big.test/' }, { fetch: f.fetch })) as {
      body: string;
      truncated?: boolean;
    };
    expect(out.truncated).toBe(true);
    expect(out.body).toHaveLength(1024 * 1024);
  });

  it('refuses a too-large body with response_too_large when on_too_large is "error"', async () => {
    const f = scriptedFetch(() => new Response('y'.repeat(5_000)));
    const error = failure(
      await run(
        'http.request',
        { url: 'https://big.test/', max_bytes: 1_000, on_too_large: 'error' },
        { fetch: f.fetch },
      ),
    );
    expect(error).toMatchObject({ code: 'response_too_large', retryable: false });
  });

  it('fails with a retryable timeout when the server does not answer within timeout_ms', async () => {
    const f = scriptedFetch(
      (req) =>
        new Promise<Response>((_, reject) => {
          req.signal.addEventListener('abort', () => reject(req.signal.reason as Error));
        }),
    );
    const error = failure(
      await run('http.request', { url: 'https://slow.test/', timeout_ms: 20 }, { fetch: f.fetch }),
    );
    expect(error).toMatchObject({ code: 'timeout', retryable: true });
    expect(error.message).toContain('20 ms');
  });

  it('reports a network failure as a retryable http_error', async () => {
    const f = scriptedFetch(() => Promise.reject(new TypeError('Network connection lost.')));
    expect(
      failure(await run('http.request', { url: 'https://down.test/' }, { fetch: f.fetch })),
    ).toMatchObject({
      code: 'http_error',
      retryable: true,
    });
  });

  it('rejects a body on a GET before sending anything', async () => {
    expect(failure(await run('http.request', { url: 'https://a.test/', body: 'x' }))).toMatchObject({
      code: 'invalid_parameters',
    });
  });
});

describe('llm.call', () => {
  const llmVars = {
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: 'https://llm.test/v1',
    PLANNER_MODEL: 'test-model',
  };

  function completion(content: string, model = 'test-model') {
    return Response.json({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1_700_000_000,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
    });
  }

  it('sends a chat completion to the configured endpoint and returns content, model and usage', async () => {
    const f = scriptedFetch(() => completion('Paris'));
    const reported: unknown[] = [];
    const outcome = await run(
      'llm.call',
      { prompt: 'Capital of France?', system: 'Be brief.', temperature: 0, max_tokens: 20 },
      { fetch: f.fetch, vars: llmVars, reportTokens: (t) => reported.push(t) },
    );
    expect(output(outcome)).toEqual({
      content: 'Paris',
      model: 'test-model',
      finish_reason: 'stop',
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
    });
    expect(outcome.tokens).toEqual({ prompt: 12, completion: 3 });
    expect(reported).toEqual([{ prompt: 12, completion: 3 }]);

    const req = f.requests[0]!;
    expect(req.url).toBe('https://llm.test/v1/chat/completions');
    expect(req.method).toBe('POST');
    expect(req.headers.get('authorization')).toBe('Bearer sk-test');
    expect(await req.json()).toEqual({
      model: 'test-model',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Capital of France?' },
      ],
      temperature: 0,
      max_tokens: 20,
    });
  });

  it('uses the model named in the parameters and passes messages through', async () => {
    const f = scriptedFetch(() => completion('hi', 'other'));
    await run(
      'llm.call',
      { model: 'other', messages: [{ role: 'user', content: 'hello' }] },
      { fetch: f.fetch, vars: llmVars },
    );
    expect(await f.requests[0]!.json()).toMatchObject({
      model: 'other',
      messages: [{ role: 'user', content: 'hello' }],
    });
  });

  it('asks for a JSON object and parses it when response_format is json', async () => {
    const f = scriptedFetch(() => completion('```json\n{"answer": 42}\n```'));
    const out = output(
      await run(
        'llm.call',
        { prompt: 'The answer?', response_format: 'json' },
        { fetch: f.fetch, vars: llmVars },
      ),
    );
    expect(out).toMatchObject({ json: { answer: 42 } });
    const body = await f.requests[0]!.json<{
      response_format: unknown;
      messages: Array<{ content: string }>;
    }>();
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.messages[0]?.content).toMatch(/JSON/);
  });

  it('fails with a retryable invalid_json when asked for JSON and the model answers prose', async () => {
    const f = scriptedFetch(() => completion('I cannot do that.'));
    expect(
      failure(
        await run(
          'llm.call',
          { prompt: 'json please', response_format: 'json' },
          { fetch: f.fetch, vars: llmVars },
        ),
      ),
    ).toMatchObject({
      code: 'invalid_json',
      retryable: true,
    });
  });

  it('fails with a non-retryable llm_not_configured naming the variables to set when no LLM is configured', async () => {
    const f = scriptedFetch(() => completion('x'));
    const error = failure(
      await run(
        'llm.call',
        { prompt: 'hi' },
        { fetch: f.fetch, vars: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: '' } },
      ),
    );
    expect(error).toMatchObject({ code: 'llm_not_configured', retryable: false });
    for (const v of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'PLANNER_MODEL'])
      expect(error.message).toContain(v);
    expect(f.calls).not.toHaveBeenCalled();
  });

  it('rejects a call with neither prompt nor messages as invalid_parameters', async () => {
    expect(failure(await run('llm.call', { system: 'x' }, { vars: llmVars }))).toMatchObject({
      code: 'invalid_parameters',
    });
  });

  it.each([
    [429, 'llm_rate_limited', true],
    [503, 'llm_server_error', true],
    [408, 'timeout', true],
    [400, 'llm_bad_request', false],
    [404, 'llm_bad_request', false],
    [401, 'llm_auth_failed', false],
  ])(
    'maps an HTTP %i from the endpoint to %s (retryable: %s), without SDK retries',
    async (status, code, retryable) => {
      const f = scriptedFetch(() =>
        Response.json({ error: { message: 'scripted failure', type: 'x' } }, { status }),
      );
      const error = failure(await run('llm.call', { prompt: 'hi' }, { fetch: f.fetch, vars: llmVars }));
      expect(error).toMatchObject({ code, retryable });
      expect(error.message).toContain('scripted failure');
      expect(f.calls).toHaveBeenCalledTimes(1);
    },
  );

  it('fails a 2xx that is no chat completion (a login page, a native API) as llm_invalid_response naming the base URL, not retried', async () => {
    for (const body of [
      () =>
        new Response('<html><head><title>Sign in</title></head></html>', {
          headers: { 'content-type': 'text/html' },
        }),
      () => Response.json({ result: { response: 'hi' }, success: true, errors: [] }),
    ]) {
      const f = scriptedFetch(body);
      const error = failure(await run('llm.call', { prompt: 'hi' }, { fetch: f.fetch, vars: llmVars }));
      expect(error).toMatchObject({ code: 'llm_invalid_response', retryable: false });
      expect(error.message).toMatch(
        /^LLM at https:\/\/llm\.test\/v1 \(model test-model\) answered (an HTML page \("Sign in"\)|JSON without "choices")/,
      );
      expect(error.message).toContain('OPENAI_BASE_URL');
    }
  });

  it('reports an unreachable endpoint as a retryable llm_unreachable', async () => {
    const f = scriptedFetch(() => Promise.reject(new TypeError('connection refused')));
    expect(failure(await run('llm.call', { prompt: 'hi' }, { fetch: f.fetch, vars: llmVars }))).toMatchObject(
      {
        code: 'llm_unreachable',
        retryable: true,
      },
    );
  });
});
