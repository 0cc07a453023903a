/**
 * A scripted OpenAI-compatible endpoint for the eval: `POST …/chat/completions` answers from the
 * canned plans in `fake-plans.ts`, recognising the goal in the prompt and whether it is a first
 * answer, a repair or a revision. Two models: `fake-good` (always the good plan) and `fake-flawed`
 * (the flaws). {@link fakeLlm} is the handler (tests inject its `fetch`); {@link serveFakeLlm} puts it
 * on 127.0.0.1 with node:http, so the real `npm run eval` can be pointed at it.
 */
import { GOALS } from './goals';
import { FLAWS, GOOD_PLANS } from './fake-plans';
import type { Flaw } from './fake-plans';
import { http } from './node-api';
import type { IncomingMessage } from './node-api';

export const FAKE_MODELS = ['fake-good', 'fake-flawed'] as const;

/** What the fake was asked, for tests. */
export type FakeCall = { model: string; goal: string | null; turn: keyof Flaw };

type ChatBody = { model?: unknown; messages?: { role?: unknown; content?: unknown }[] };

/**
 * The fake endpoint as a request handler.
 * @example const llm = fakeLlm(); await planGoal(req, { ...deps, fetch: llm.fetch }); llm.calls.length
 */
export function fakeLlm() {
  const calls: FakeCall[] = [];
  const handle = async (req: Request): Promise<Response> => {
    const path = new URL(req.url).pathname;
    if (req.method === 'GET' && path.endsWith('/models')) {
      return Response.json({ object: 'list', data: FAKE_MODELS.map((id) => ({ id, object: 'model' })) });
    }
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      return error(404, `No route ${req.method} ${path}: this fake serves POST /v1/chat/completions`);
    }
    const body = await req.json<ChatBody>();
    const model = typeof body.model === 'string' ? body.model : '';
    if (!(FAKE_MODELS as readonly string[]).includes(model)) {
      return error(404, `The model "${model}" does not exist (this fake serves ${FAKE_MODELS.join(', ')})`);
    }
    const messages = (body.messages ?? []).map((m) => ({
      role: m.role,
      content: typeof m.content === 'string' ? m.content : '',
    }));
    const prompt = messages.find((m) => m.role === 'user')?.content ?? '';
    const last = messages.at(-1);
    const turn: keyof Flaw =
      last?.role === 'user' && last.content.startsWith('Your previous answer could not be used')
        ? 'repair'
        : prompt.includes('This is a revision of plan')
          ? 'revision'
          : 'first';
    const goal = GOALS.find((g) => prompt.includes(`Goal: ${g.goal}`))?.id ?? null;
    calls.push({ model, goal, turn });
    const content = answer(model, goal, turn);
    const promptChars = messages.reduce((n, m) => n + m.content.length, 0);
    return completion(
      model,
      content,
      Math.ceil(promptChars / 4),
      Math.ceil(content.length / 4),
      calls.length,
    );
  };
  const fetchImpl = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> =>
    handle(new Request(input, init));
  return { handle, fetch: fetchImpl, calls };
}

function answer(model: string, goal: string | null, turn: keyof Flaw): string {
  if (goal === null) return 'I do not recognise this goal.';
  const good = JSON.stringify({ steps: GOOD_PLANS[goal] ?? [] });
  return model === 'fake-flawed' ? (FLAWS[goal]?.[turn] ?? good) : good;
}

function completion(model: string, content: string, prompt: number, done: number, n: number): Response {
  return Response.json({
    id: `chatcmpl-fake-${n}`,
    object: 'chat.completion',
    created: 1_767_225_600,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: prompt, completion_tokens: done, total_tokens: prompt + done },
  });
}

function error(status: number, message: string): Response {
  return Response.json({ error: { message, type: 'invalid_request_error' } }, { status });
}

/**
 * Serves the fake on 127.0.0.1 (port 0: any free port).
 * @example const s = await serveFakeLlm(0); console.log(`OPENAI_BASE_URL=${s.url}`); await s.close();
 */
export async function serveFakeLlm(port = 0): Promise<{ url: string; close(): Promise<void> }> {
  const { handle } = fakeLlm();
  const server = http().createServer((req, res) => {
    toRequest(req)
      .then(handle)
      .then(async (response) => {
        const headers: Record<string, string> = {};
        response.headers.forEach((value, key) => (headers[key] = value));
        res.writeHead(response.status, headers);
        res.end(await response.text());
      })
      .catch((err: unknown) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(err) } }));
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.on('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  return {
    url: `http://127.0.0.1:${bound}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function toRequest(req: IncomingMessage): Promise<Request> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.length;
  }
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  const method = req.method ?? 'GET';
  return new Request(`http://127.0.0.1${req.url ?? '/'}`, {
    method,
    headers,
    ...(method === 'GET' || method === 'HEAD' ? {} : { body }),
  });
}
