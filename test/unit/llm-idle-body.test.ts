/**
 * An LLM endpoint that sends its headers and then stops: the call fails with `timeout` once nothing
 * has arrived for the client's timeout, streamed or not — through a real HTTP server on loopback and
 * the runtime's own fetch. A stream that keeps sending is not cut, however long it takes.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completePlanChat } from '../../src/planner/chat';
import { readChunk } from '../../src/planner/completion-shape';
import { createOpenAIClient, toLlmError } from '../../src/executor/tools/openai-client';
import { toErrorInfo } from '../../src/errors';

let server: Server;
let base = '';
const open = new Set<ServerResponse>();

const chunk = (content: string) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

beforeAll(async () => {
  server = createServer((req, res) => {
    open.add(res);
    const path = req.url ?? '';
    if (path.startsWith('/stall-json/')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(
        '{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","con',
      );
    } else if (path.startsWith('/stall-stream/')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk('{"type":"step"'));
    } else {
      // Slow but steady: a piece every 150 ms for 900 ms, then the end.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let n = 0;
      const timer = setInterval(() => {
        if (n++ < 6) return void res.write(chunk(`piece${n} `));
        clearInterval(timer);
        res.end('data: [DONE]\n\n');
      }, 150);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of open) res.destroy();
  await new Promise((r) => server.close(r));
});

const client = (path: string, timeoutMs: number) =>
  createOpenAIClient({ OPENAI_BASE_URL: `${base}/${path}/v1` }, undefined, { timeoutMs });

describe('an LLM endpoint that stops sending after its headers', () => {
  it('fails a planning call with a retryable timeout instead of waiting for ever', async () => {
    const answer = await completePlanChat({
      client: client('stall-json', 300),
      baseURL: `${base}/stall-json/v1`,
      model: 'm',
      messages: [{ role: 'user', content: 'plan' }],
      schema: {},
      mode: 'text',
      now: Date.now,
    });
    expect(answer.ok).toBe(false);
    expect(!answer.ok && answer.error).toMatchObject({
      code: 'timeout',
      retryable: true,
      // The client's own timeout covers a body it reads whole; the guard, one it streams.
      message: expect.stringMatching(/timed out|sent nothing for 0\.3 s/),
    });
  });

  it('cuts a stream that stalls mid-way, with the same error', async () => {
    const stream = await client('stall-stream', 300).stream({
      model: 'm',
      messages: [{ role: 'user', content: 'plan' }],
    });
    const got: string[] = [];
    const failure = await (async () => {
      for await (const c of stream) got.push(readChunk(c).text);
    })().catch((e: unknown) => e);
    expect(got).toEqual(['{"type":"step"']);
    expect(toErrorInfo(toLlmError(failure, { model: 'm' }))).toMatchObject({
      code: 'timeout',
      retryable: true,
      message: expect.stringContaining('sent nothing for 0.3 s after its headers'),
    });
  });

  it('does not cut a stream that keeps sending, though it lasts longer than the timeout', async () => {
    const stream = await client('steady', 300).stream({
      model: 'm',
      messages: [{ role: 'user', content: 'plan' }],
    });
    let text = '';
    for await (const c of stream) text += readChunk(c).text;
    expect(text).toBe('piece1 piece2 piece3 piece4 piece5 piece6 ');
  });
});
