/**
 * The Chat Completions client against a real HTTP server on loopback, answering the ways servers do
 * when they do not answer like OpenAI: an HTML error page, a 2xx that is not JSON, an error inside a
 * 2xx stream, no headers at all. Each failure is checked down to the stable code `toLlmError` gives it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toErrorInfo } from '../../src/errors';
import { ChatCompletionsClient, OPENAI_BASE_URL } from '../../src/executor/tools/chat-completions-client';
import {
  LlmApiError,
  LlmBodyError,
  LlmClientError,
  LlmConnectionError,
  LlmConnectionTimeoutError,
  LlmUserAbortError,
} from '../../src/executor/tools/llm-errors';
import { askedWaitMs, toLlmError } from '../../src/executor/tools/openai-client';
import { readChunk, readCompletion } from '../../src/planner/completion-shape';

type Seen = { path: string; authorization: string | undefined; body: Record<string, unknown> };

let server: Server;
let base = '';
const seen: Seen[] = [];
const open = new Set<ServerResponse>();
/** Resolves when the server sees the client hang up on `/left-early`. */
let leftEarly: Promise<void>;
let hungUp: () => void = () => undefined;

const chunk = (content: string) =>
  `data: ${JSON.stringify({ object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

/** A route answering 200 with this JSON body. */
const answer200 = (body: unknown) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  ok: (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        model: 'm',
        choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
      }),
    );
  },
  'html-502': (_req, res) => {
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end('<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>');
  },
  'text-200': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><html><head><title>Welcome</title></head></html>');
  },
  'bad-json-200': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"choices": [');
  },
  // A success status over an error body, as vLLM, LiteLLM and some proxies answer.
  'error-200': answer200({ error: { message: 'model overloaded' } }),
  'litellm-429': answer200({
    error: {
      message: 'litellm.RateLimitError: OpenAIException - Rate limit reached for gpt-4o',
      type: 'throttling_error',
      param: null,
      code: '429',
    },
  }),
  'vllm-400': answer200({
    error: {
      message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
      type: 'BadRequestError',
      param: null,
      code: 400,
    },
  }),
  'auth-200': answer200({ error: { message: 'Invalid API key provided', type: 'authentication_error' } }),
  'ollama-200': answer200({ error: "model 'llama9' not found, try pulling it first" }),
  'odd-200': answer200({ error: { message: 'something odd happened' } }),
  'not-completion-200': answer200({ id: 'x', object: 'list', data: [] }),
  'whole-with-usage': answer200({
    choices: [{ index: 0, message: { role: 'assistant', content: 'all at once' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 4, completion_tokens: 3 },
  }),
  'rate-limited': (_req, res) => {
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': '1500', 'retry-after': '9' });
    res.end(JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests' } }));
  },
  stream: (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // A comment line, a chunk split across writes, then [DONE] and something that must not be read.
    res.write(': keep-alive\n\n');
    const first = chunk('Hel');
    res.write(first.slice(0, 20));
    res.write(first.slice(20));
    res.write(chunk('lo'));
    res.write(`data: ${JSON.stringify({ usage: { prompt_tokens: 3, completion_tokens: 2 } })}\n\n`);
    res.end('data: [DONE]\n\ndata: not json\n\n');
  },
  'stream-no-done': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(chunk('all') + chunk(' of it'));
  },
  'stream-error-event': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`${chunk('part')}event: error\ndata: {"error":{"message":"upstream model crashed"}}\n\n`);
  },
  'stream-error-chunk': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`${chunk('part')}data: {"error":{"message":"context length exceeded"}}\n\n`);
  },
  // OpenAI's own mid-stream failure, and an error event that says nothing classifiable.
  'stream-error-rate-limit': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(
      `${chunk('part')}data: {"error":{"message":"Rate limit reached for gpt-4o","type":"tokens","code":"rate_limit_exceeded"}}\n\n`,
    );
  },
  'stream-error-server': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(
      `${chunk('part')}event: error\ndata: {"error":{"message":"The server had an error while processing your request.","type":"server_error"}}\n\n`,
    );
  },
  'stream-error-odd': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`${chunk('part')}event: error\ndata: {"error":{"message":"something odd"}}\n\n`);
  },
  'stream-malformed': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end('data: {"choices": [\n\n');
  },
  'left-early': (req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk('first'));
    req.socket.on('close', () => hungUp());
  },
  // Headers never come (the client's timeout has to end it); the body of a held stream never ends.
  silent: () => undefined,
  'held-stream': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk('first'));
  },
};

beforeAll(async () => {
  leftEarly = new Promise((r) => (hungUp = r));
  server = createServer((req, res) => {
    open.add(res);
    let data = '';
    req.on('data', (c: Buffer) => (data += c.toString()));
    req.on('end', () => {
      const path = (req.url ?? '').split('/')[1] ?? '';
      seen.push({
        path: req.url ?? '',
        authorization: req.headers.authorization,
        body: JSON.parse(data) as Record<string, unknown>,
      });
      routes[path]?.(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of open) res.destroy();
  await new Promise((r) => server.close(r));
});

const client = (route: string, extra: { apiKey?: string; timeoutMs?: number } = {}) =>
  new ChatCompletionsClient({ baseURL: `${base}/${route}/v1/`, ...extra });
const ask = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };
const where = { model: 'm', baseURL: 'http://llm.test/v1' };
const failure = (p: Promise<unknown>) =>
  p.then(
    () => new Error('no failure'),
    (e: unknown) => e,
  );
async function drain(stream: AsyncIterable<unknown>): Promise<{ text: string; error: unknown }> {
  let text = '';
  try {
    for await (const c of stream) text += readChunk(c).text;
    return { text, error: null };
  } catch (error) {
    return { text, error };
  }
}

describe('a Chat Completions request', () => {
  it('posts the JSON body to {baseURL}/chat/completions with the key as a Bearer token', async () => {
    const answer = await client('ok', { apiKey: 'sk-test' }).create({ ...ask, temperature: 0 });
    expect(readCompletion(answer, 'm')).toMatchObject({ ok: true, content: 'hi' });
    expect(seen.at(-1)).toEqual({
      path: '/ok/v1/chat/completions',
      authorization: 'Bearer sk-test',
      body: { ...ask, temperature: 0 },
    });
  });

  it('sends no Authorization header to a keyless endpoint, and defaults to OpenAI’s API', async () => {
    await client('ok').create(ask);
    expect(seen.at(-1)?.authorization).toBeUndefined();
    const urls: string[] = [];
    const fake = new ChatCompletionsClient({
      fetch: (input) => (urls.push(new Request(input).url), Promise.resolve(Response.json({ choices: [] }))),
    });
    expect(await fake.create(ask)).toEqual({ choices: [] });
    expect(urls).toEqual([`${OPENAI_BASE_URL}/chat/completions`]);
  });
});

describe('what a server answers instead of a completion', () => {
  it("quotes a proxy's HTML error page by its title, as a retryable server error", async () => {
    const err = await failure(client('html-502').create(ask));
    expect(err).toBeInstanceOf(LlmApiError);
    expect(err).toMatchObject({ status: 502, error: undefined });
    expect(toErrorInfo(toLlmError(err, where))).toEqual({
      code: 'llm_server_error',
      message: 'LLM at http://llm.test/v1 (model m) answered 502 502 Bad Gateway (an HTML page)',
      retryable: true,
    });
  });

  it('returns a 2xx that is not JSON as its text, and JSON that does not parse as its text too', async () => {
    const page = await client('text-200').create(ask);
    expect(readCompletion(page, 'm')).toMatchObject({ ok: false, what: 'an HTML page ("Welcome")' });
    const broken = await client('bad-json-200').create(ask);
    expect(readCompletion(broken, 'm')).toMatchObject({
      ok: false,
      what: 'text, not JSON ("{"choices": [")',
    });
  });

  it.each([
    [
      'error-200',
      'llm_server_error',
      true,
      'answered 200 with an error instead of a completion: model overloaded',
    ],
    [
      'litellm-429',
      'llm_rate_limited',
      true,
      'answered 200 with an error instead of a completion: litellm.RateLimitError: OpenAIException - Rate limit reached for gpt-4o (type throttling_error, code 429)',
    ],
    [
      'vllm-400',
      'llm_bad_request',
      false,
      "answered 200 with an error instead of a completion: This model's maximum context length is 4096 tokens. However, you requested 5000 tokens. (type BadRequestError, code 400)",
    ],
    [
      'auth-200',
      'llm_auth_failed',
      false,
      'answered 200 with an error instead of a completion: Invalid API key provided (type authentication_error) — check OPENAI_API_KEY',
    ],
    [
      'ollama-200',
      'llm_bad_request',
      false,
      "answered 200 with an error instead of a completion: model 'llama9' not found, try pulling it first — check the model name",
    ],
    [
      'odd-200',
      'llm_error',
      false,
      'answered 200 with an error instead of a completion: something odd happened',
    ],
  ])(
    'reports a 2xx whose body is an error (%s) as the provider’s error: %s, retryable %s',
    async (route, code, retryable, said) => {
      const err = await failure(client(route).create(ask));
      expect(err).toBeInstanceOf(LlmBodyError);
      expect(err).toMatchObject({ status: undefined, httpStatus: 200 });
      const info = toErrorInfo(toLlmError(err, where));
      expect(info).toMatchObject({ code, retryable });
      expect(info.message.startsWith(`LLM at http://llm.test/v1 (model m) ${said}`)).toBe(true);
    },
  );

  it('keeps the headers of an error, so Retry-After is read from them', async () => {
    const err = await failure(client('rate-limited').create(ask));
    expect(err).toMatchObject({ status: 429, error: { message: 'Rate limit reached', type: 'requests' } });
    expect(askedWaitMs(err)).toBe(1500);
    expect(toErrorInfo(toLlmError(err, where))).toMatchObject({
      code: 'llm_rate_limited',
      retryable: true,
      retry_after_ms: 1500,
    });
  });
});

describe('a streamed completion', () => {
  it('yields each event’s chunk, reassembled across writes, and stops at [DONE]', async () => {
    const stream = await client('stream').stream({ ...ask, stream_options: { include_usage: true } });
    const chunks: unknown[] = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks.map((c) => readChunk(c).text).join('')).toBe('Hello');
    expect(readChunk(chunks.at(-1)).usage).toEqual({ prompt: 3, completion: 2 });
    expect(seen.at(-1)?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('reads a JSON answer to a stream request as what it is: an error, a whole completion, or neither', async () => {
    // A server or proxy that ignores `stream: true`, or answers its error in a 2xx body.
    const refused = await failure(client('litellm-429').stream(ask));
    expect(refused).toBeInstanceOf(LlmBodyError);
    expect(toErrorInfo(toLlmError(refused, where))).toMatchObject({
      code: 'llm_rate_limited',
      retryable: true,
    });
    const chunks: unknown[] = [];
    for await (const c of await client('whole-with-usage').stream(ask)) chunks.push(c);
    expect(chunks.map((c) => readChunk(c))).toEqual([
      { text: 'all at once', usage: { prompt: 4, completion: 3 } },
    ]);
    expect(await drain(await client('ok').stream(ask))).toEqual({ text: 'hi', error: null });
    const neither = await failure(client('not-completion-200').stream(ask));
    expect(neither).toBeInstanceOf(LlmClientError);
    expect((neither as Error).message).toBe(
      'Error reading response: a stream was asked for and the server answered JSON that is not a completion (its keys: "id", "object", "data")',
    );
  });

  it('ends when the body ends without [DONE]', async () => {
    expect(await drain(await client('stream-no-done').stream(ask))).toEqual({
      text: 'all of it',
      error: null,
    });
  });

  it('raises an `event: error` and an `error` chunk as the server’s error, after the chunks before it, classified by what it says', async () => {
    for (const [route, code, said, retryable] of [
      ['stream-error-event', 'llm_server_error', 'upstream model crashed', true],
      ['stream-error-chunk', 'llm_bad_request', 'context length exceeded', false],
      [
        'stream-error-rate-limit',
        'llm_rate_limited',
        'Rate limit reached for gpt-4o (type tokens, code rate_limit_exceeded)',
        true,
      ],
      [
        'stream-error-server',
        'llm_server_error',
        'The server had an error while processing your request. (type server_error)',
        true,
      ],
      ['stream-error-odd', 'llm_error', 'something odd', false],
    ] as const) {
      const { text, error } = await drain(await client(route).stream(ask));
      expect(text).toBe('part');
      expect(error).toBeInstanceOf(LlmBodyError);
      expect(toErrorInfo(toLlmError(error, where))).toEqual({
        code,
        message: `LLM at http://llm.test/v1 (model m) sent an error inside its 200 stream: ${said}`,
        retryable,
      });
    }
  });

  it('fails on an event that is not JSON, quoting it', async () => {
    const { error } = await drain(await client('stream-malformed').stream(ask));
    expect(error).toBeInstanceOf(LlmClientError);
    expect(toErrorInfo(toLlmError(error, where))).toMatchObject({
      code: 'llm_error',
      message: expect.stringContaining('malformed server-sent event JSON: {"choices": ['),
    });
  });

  it('hangs up on the server when the reader leaves the loop early', async () => {
    const stream = await client('left-early').stream(ask);
    for await (const c of stream) {
      expect(readChunk(c).text).toBe('first');
      break;
    }
    await leftEarly;
    expect(seen.some((s) => s.path.startsWith('/left-early/'))).toBe(true);
  });
});

/** Reads `stream`, aborting `during` at the first chunk: the chunks read and how the reading ended. */
async function abortedAtFirstChunk(stream: AsyncIterable<unknown>, during: AbortController) {
  const got: string[] = [];
  const ended = await (async () => {
    for await (const c of stream) {
      got.push(readChunk(c).text);
      during.abort();
    }
  })().then(
    () => null,
    (e: unknown) => e,
  );
  return { got, ended };
}

describe('a call that does not end by itself', () => {
  it('times out waiting for headers, as a retryable timeout', async () => {
    const err = await failure(client('silent', { timeoutMs: 200 }).create(ask));
    expect(err).toBeInstanceOf(LlmConnectionTimeoutError);
    expect(toErrorInfo(toLlmError(err, where))).toEqual({
      code: 'timeout',
      message: 'LLM request to http://llm.test/v1 (model m) timed out',
      retryable: true,
    });
  });

  it('ends with an abort when the caller’s signal fires, before the headers or mid-stream', async () => {
    const before = new AbortController();
    const waiting = failure(client('silent').create(ask, { signal: before.signal }));
    before.abort();
    const err = await waiting;
    expect(err).toBeInstanceOf(LlmUserAbortError);
    expect(toErrorInfo(toLlmError(err, where))).toMatchObject({ code: 'aborted' });

    const during = new AbortController();
    const stream = await client('held-stream').stream(ask, { signal: during.signal });
    const { got, ended } = await abortedAtFirstChunk(stream, during);
    expect(ended).toBeInstanceOf(LlmUserAbortError);
    expect(got).toEqual(['first']);
  });

  it('ends mid-stream on the caller’s abort even when the fetch’s body goes on regardless', async () => {
    // A fetch (a test double, a polyfill) whose body ignores the request's signal: one chunk, then open.
    const chunk = {
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta: { content: 'first' }, finish_reason: null }],
    };
    const deaf: typeof fetch = () =>
      Promise.resolve(
        new Response(
          new ReadableStream<Uint8Array>({
            start: (c) => c.enqueue(new TextEncoder().encode(`data: ${JSON.stringify(chunk)}\n\n`)),
          }),
          { headers: { 'content-type': 'text/event-stream' } },
        ),
      );
    const during = new AbortController();
    const stream = await new ChatCompletionsClient({ baseURL: 'http://llm.test/v1', fetch: deaf }).stream(
      ask,
      {
        signal: during.signal,
      },
    );
    const { got, ended } = await abortedAtFirstChunk(stream, during);
    expect(ended).toBeInstanceOf(LlmUserAbortError);
    expect(got).toEqual(['first']);
  });

  it('fails fast on an aborted signal, and reports a refused connection as unreachable', async () => {
    const aborted = AbortSignal.abort();
    expect(await failure(client('ok').create(ask, { signal: aborted }))).toBeInstanceOf(LlmUserAbortError);
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const err = await failure(
      new ChatCompletionsClient({ baseURL: `http://127.0.0.1:${port}/v1` }).create(ask),
    );
    expect(err).toBeInstanceOf(LlmConnectionError);
    expect(toErrorInfo(toLlmError(err, where))).toMatchObject({ code: 'llm_unreachable', retryable: true });
  });
});

describe('a connection that fails', () => {
  /** What toLlmError says about a call to `baseURL`. */
  const said = async (baseURL: string) => {
    const err = await failure(new ChatCompletionsClient({ baseURL }).create(ask));
    expect(err).toBeInstanceOf(LlmConnectionError);
    return toErrorInfo(toLlmError(err, where));
  };

  it('says why: a refused connection, a name that does not resolve, a TLS handshake that fails', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect(await said(`http://127.0.0.1:${port}/v1`)).toEqual({
      code: 'llm_unreachable',
      message: `Could not reach the LLM at http://llm.test/v1 (model m): connect ECONNREFUSED 127.0.0.1:${port}`,
      retryable: true,
    });
    // .invalid never resolves (RFC 2606); a machine without DNS answers EAI_AGAIN instead.
    expect((await said('http://llm.invalid/v1')).message).toMatch(
      /^Could not reach the LLM at .*: getaddrinfo (ENOTFOUND|EAI_AGAIN) llm\.invalid$/,
    );
    // HTTPS to the plain-HTTP server: OpenSSL's reason and code, not its error line.
    expect((await said(`${base.replace('http:', 'https:')}/ok/v1`)).message).toMatch(
      /: SSL routines: wrong version number \(ERR_SSL_WRONG_VERSION_NUMBER\)$/,
    );
  });

  it('never quotes the user, password or query of a URL the runtime names in its reason', async () => {
    const info = await said('http://edgeplan:hunter2@127.0.0.1:1/v1?key=qtoken123');
    expect(info.code).toBe('llm_unreachable');
    expect(info.message).toBe(
      'Could not reach the LLM at http://llm.test/v1 (model m): Request cannot be constructed from a URL that includes credentials: http://127.0.0.1:1/v1',
    );
    expect(info.message).not.toMatch(/hunter2|qtoken123|edgeplan:/);
  });
});
