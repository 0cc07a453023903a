/**
 * An OpenAI-compatible Chat Completions endpoint on loopback for the browser tests of LLM-planned runs:
 * `wrangler dev` is pointed at it (OPENAI_BASE_URL). Answers are scripted per tag: a call whose
 * messages contain a tag gets that tag's next answer — a streamed one as SSE chunks (with `usage`) a
 * gap apart, anything else as one chat.completion. A call no script answers is a 500.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Answer =
  | string
  /**
   * Content sent as SSE chunks `gap_ms` apart when the call streams (as one completion when not);
   * with `held`, the pieces after the first wait for it (a stream caught half-way, for as long as a
   * test looks at it), and a completion that does not stream is sent once it lets go.
   */
  | { pieces: string[]; gap_ms?: number; held?: Promise<void> }
  | { status: number; error: string };

/** One `{"type":"step"}` NDJSON line per step, as a streaming planner answers. */
export const ndjson = (steps: unknown[]) =>
  steps.map((step) => `${JSON.stringify({ type: 'step', step })}\n`);

/** The `wrangler dev` arguments that point the planner at a scripted LLM at `url` (a model named `scripted-model`). */
export const plannerVars = (url: string): string[] => [
  '--var',
  `OPENAI_BASE_URL:${url}`,
  '--var',
  'OPENAI_API_KEY:sk-scripted',
  '--var',
  'PLANNER_MODEL:scripted-model',
];

export async function startScriptedLlm() {
  const scripts: [tag: string, answers: Answer[]][] = [];
  const calls: { tag: string | null; stream: boolean }[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}') as {
        model?: string;
        stream?: boolean;
        messages?: { content: string }[];
      };
      const text = (body.messages ?? []).map((m) => m.content).join('\n');
      const entry = scripts.find(([tag, answers]) => answers.length > 0 && text.includes(tag));
      calls.push({ tag: entry?.[0] ?? null, stream: !!body.stream });
      const answer = entry?.[1].shift();
      const model = body.model ?? 'scripted';
      if (answer === undefined || (typeof answer === 'object' && 'status' in answer)) {
        const a = answer ?? { status: 500, error: 'unscripted call' };
        res.writeHead(a.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: a.error, type: 'invalid_request_error' } }));
        return;
      }
      const pieces = typeof answer === 'string' ? [answer] : answer.pieces;
      const usage = { prompt_tokens: 120, completion_tokens: 10 * pieces.length };
      const total = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
      const held = typeof answer === 'string' ? undefined : answer.held;
      if (!body.stream) {
        void (held ?? Promise.resolve()).then(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              id: `chatcmpl-${calls.length}`,
              object: 'chat.completion',
              created: 1_700_000_000,
              model,
              choices: [
                { index: 0, message: { role: 'assistant', content: pieces.join('') }, finish_reason: 'stop' },
              ],
              usage: total,
            }),
          );
        });
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
        res.write(
          `data: ${JSON.stringify({
            id: `chatcmpl-${calls.length}`,
            object: 'chat.completion.chunk',
            created: 1_700_000_000,
            model,
            choices: [{ index: 0, delta, finish_reason: null }],
            ...extra,
          })}\n\n`,
        );
      const gap = typeof answer === 'string' ? 0 : (answer.gap_ms ?? 0);
      void (async () => {
        chunk({ role: 'assistant', content: '' });
        for (const [i, p] of pieces.entries()) {
          if (gap) await new Promise((r) => setTimeout(r, gap));
          if (i === 1 && held) await held;
          chunk({ content: p });
        }
        res.write(
          `data: ${JSON.stringify({ id: 'u', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [], usage: total })}\n\n`,
        );
        res.end('data: [DONE]\n\n');
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    url,
    calls,
    /** Calls whose messages contain `tag` get these answers, in order. */
    script(tag: string, answers: Answer[]) {
      scripts.push([tag, [...answers]]);
    },
    // A stream still held (a test that failed before it let go) is cut, not waited for.
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
