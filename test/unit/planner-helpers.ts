/**
 * A scripted OpenAI-compatible endpoint for planner tests: answers Chat Completions from a script,
 * records what the SDK sent, and can hang until the call is aborted. No network.
 */
import { createToolRegistry } from '../../src/executor/tools';
import type { PlannerDeps } from '../../src/planner/types';

/** One scripted answer: content text, a chat.completion with details, an HTTP error, or a hang. */
export type Reply =
  | string
  | { content: string; model?: string; usage?: { prompt_tokens: number; completion_tokens: number } }
  | { status: number; error: string }
  | { hang: true }
  /** A streamed answer (`stream: true`): these content pieces as SSE chunks, then usage; `gap_ms` apart. */
  /** `stall`: the pieces, then nothing more — the stream stays open and silent. */
  /** `error`: the pieces, then this error as a chunk (`{"error": …}`, as OpenAI fails midway), and the end. */
  | { stream: string[]; gap_ms?: number; stall?: boolean; error?: Record<string, unknown> };

/** What the SDK sent, parsed. */
export type Sent = {
  url: string;
  authorization: string | null;
  body: {
    model: string;
    messages: Array<{ role: string; content: string }>;
    temperature?: number;
    stream?: boolean;
    response_format?: { type: string; json_schema?: { name: string; strict: boolean; schema: unknown } };
  };
};

/**
 * An endpoint answering from `script` in order (by model when `script` is a record of lists). Runs
 * out → a 500, so a test that makes more calls than it scripted fails loudly.
 */
export function scriptedLlm(script: Reply[] | Record<string, Reply[]>) {
  const sent: Sent[] = [];
  const queues = Array.isArray(script)
    ? { '*': [...script] }
    : Object.fromEntries(Object.entries(script).map(([k, v]) => [k, [...v]]));
  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    const body = await req.json<Sent['body']>();
    sent.push({ url: req.url, authorization: req.headers.get('authorization'), body });
    const queue = queues['*'] ?? queues[body.model] ?? [];
    const reply = queue.shift();
    if (reply === undefined)
      return Response.json({ error: { message: `unscripted call for ${body.model}` } }, { status: 500 });
    if (typeof reply === 'object' && 'hang' in reply) {
      return new Promise<Response>((_, reject) => {
        const signal = init?.signal;
        if (signal?.aborted) reject(signal.reason as Error);
        signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      });
    }
    if (typeof reply === 'object' && 'stream' in reply)
      return reply.stall
        ? stalled(reply.stream, body.model)
        : sse(reply.stream, body.model, reply.gap_ms, reply.error);
    if (typeof reply === 'object' && 'status' in reply) {
      return Response.json(
        { error: { message: reply.error, type: 'invalid_request_error' } },
        { status: reply.status },
      );
    }
    const r = typeof reply === 'string' ? { content: reply } : reply;
    return Response.json({
      id: `chatcmpl-${sent.length}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model: r.model ?? body.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: r.content },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: r.usage?.prompt_tokens ?? 100,
        completion_tokens: r.usage?.completion_tokens ?? 20,
        total_tokens: (r.usage?.prompt_tokens ?? 100) + (r.usage?.completion_tokens ?? 20),
      },
    });
  };
  return { fetch: fetchImpl, sent };
}

/** A deterministic clock and id source. */
export function sources() {
  let n = 0;
  return {
    clock: { now: () => new Date('2026-01-01T00:00:00.000Z') },
    ids: {
      id: (prefix: string) => `${prefix}_${++n}`,
      uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
    },
  };
}

export const LLM_ENV = {
  OPENAI_API_KEY: 'sk-test-secret-key-123456',
  OPENAI_BASE_URL: 'https://llm.test/v1',
  PLANNER_MODEL: 'model-a',
};

/** Deps for `planGoal` with the demo tools, a scripted endpoint and deterministic sources. */
export function deps(over: Partial<PlannerDeps> & { fetch?: typeof fetch } = {}): PlannerDeps {
  return {
    env: LLM_ENV,
    tools: createToolRegistry({ DEMO_TOOLS: 'true' }),
    ...sources(),
    now: () => 0,
    ...over,
  };
}

/** A valid plan's JSON for the demo tools. */
export function planJson(steps?: unknown[]): string {
  return JSON.stringify({
    goal: 'g',
    steps: steps ?? [
      { id: 'a', description: 'say hi', action: 'demo.echo', parameters: { text: 'hi' }, dependencies: [] },
      {
        id: 'b',
        description: 'say it again',
        action: 'demo.echo',
        parameters: { again: '{{ steps.a.output.text }}' },
        dependencies: ['a'],
      },
    ],
  });
}

/** An OpenAI-style server-sent event stream of chat.completion.chunk objects. */
/** A stream that sends `pieces` and then nothing, never ending (until its reader gives up). */
function stalled(pieces: string[], model: string): Response {
  const text = pieces
    .map(
      (content) =>
        `data: ${JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`,
    )
    .join('');
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(new TextEncoder().encode(text)),
  });
  return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
}

function sse(pieces: string[], model: string, gapMs = 0, error?: Record<string, unknown>): Response {
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
  const events = [
    chunk({ role: 'assistant', content: '' }),
    ...pieces.map((content) => chunk({ content })),
    ...(error
      ? [`data: ${JSON.stringify({ error })}\n\n`]
      : [
          `data: ${JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [], usage: { prompt_tokens: 80, completion_tokens: 30, total_tokens: 110 } })}\n\n`,
          'data: [DONE]\n\n',
        ]),
  ];
  const headers = { 'Content-Type': 'text/event-stream' };
  if (gapMs === 0) return new Response(events.join(''), { headers });
  // A slow model: each chunk a while after the one before.
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const e of events) {
        controller.enqueue(new TextEncoder().encode(e));
        await new Promise((r) => setTimeout(r, gapMs));
      }
      controller.close();
    },
  });
  return new Response(body, { headers });
}
