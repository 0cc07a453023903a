/**
 * An OpenAI-compatible endpoint on loopback that answers the way real servers do when they do not
 * answer like OpenAI: each call is routed by a tag in its messages and by the model it names to a
 * scripted reply that writes the raw HTTP response — SSE chunks without `choices`, `<think>` blocks,
 * code fences, Cloudflare's `errors` array, Ollama's `{error: "…"}`, an HTML page, a call held
 * without an answer. A call nothing scripts is a 500 saying so.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Call = { tag: string | null; model: string; stream: boolean };
/** Writes one raw answer. */
export type Reply = (res: ServerResponse, call: Call) => void;

/** A chat.completion with this content (and these message fields). */
export const completion =
  (content: string | null, extra: Record<string, unknown> = {}): Reply =>
  (res, call) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'chatcmpl-q',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: call.model,
        choices: [{ index: 0, message: { role: 'assistant', content, ...extra }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
      }),
    );
  };

/**
 * SSE content chunks, then (as some servers do) a usage chunk with no `choices` key at all, and no
 * `[DONE]`: the body just ends.
 */
export const stream =
  (pieces: string[]): Reply =>
  (res, call) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const base = {
      id: 'chatcmpl-q',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: call.model,
    };
    for (const content of pieces)
      res.write(
        `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`,
      );
    res.end(`data: ${JSON.stringify({ ...base, usage: { prompt_tokens: 100, completion_tokens: 30 } })}\n\n`);
  };

/** An error status with this body (JSON when it is not a string). */
export const error =
  (status: number, body: unknown, contentType = 'application/json'): Reply =>
  (res) => {
    res.writeHead(status, { 'content-type': typeof body === 'string' ? contentType : 'application/json' });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

/** No answer at all until the server closes (the client's timeout has to end it). */
export const hang: Reply = () => {};

/**
 * Starts the server on `port` of 127.0.0.1 (0: one the system picks); `url` is its `/v1`.
 * @example const llm = await startQuirkyLlm(0); llm.script('tag', 'primary', [completion('…')]);
 */
export async function startQuirkyLlm(port = 0) {
  const routes: { tag: string; model: string; replies: Reply[] }[] = [];
  const calls: Call[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}') as {
        model?: string;
        stream?: boolean;
        messages?: { content: string }[];
      };
      const text = (body.messages ?? []).map((m) => m.content).join('\n');
      const model = body.model ?? '';
      const route = routes.find(
        (r) => r.replies.length > 0 && text.includes(r.tag) && (r.model === '*' || r.model === model),
      );
      const call = { tag: route?.tag ?? null, model, stream: !!body.stream };
      calls.push(call);
      const reply =
        route?.replies.shift() ?? error(500, { error: { message: `unscripted call for ${model}` } });
      reply(res, call);
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    calls,
    /** Calls whose messages contain `tag` (and, unless '*', that name `model`) get these replies in order. */
    script(tag: string, model: string, replies: Reply[]) {
      routes.push({ tag, model, replies: [...replies] });
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
