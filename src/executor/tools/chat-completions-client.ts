/**
 * A small client for OpenAI-compatible Chat Completions (`POST {baseURL}/chat/completions`), in
 * place of the openai SDK: that SDK's client builds every resource of OpenAI's API and cannot be
 * tree-shaken, which made it a third of the Worker bundle for this one endpoint. It behaves as the
 * SDK did where edgeplan relied on it — errors (llm-errors.ts), the timeout, the caller's signal,
 * SSE streams (chat-completion-stream.ts) — and has no retries: the run's retry policy owns those.
 */
import type { ChatCompletionRequest } from './chat-completions-types';
import { sseChunks } from './chat-completion-stream';
import { statusLike } from './llm-error-text';
import {
  LlmApiError,
  LlmBodyError,
  LlmClientError,
  LlmConnectionError,
  LlmConnectionTimeoutError,
  LlmUserAbortError,
} from './llm-errors';

/** OpenAI's own API, when no base URL is given. */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

export type ChatCompletionsClientOptions = {
  /** Sent as `Authorization: Bearer …`; omitted for a keyless local server (Ollama, vLLM). */
  apiKey?: string | undefined;
  /** Default {@link OPENAI_BASE_URL}. */
  baseURL?: string | undefined;
  fetch?: typeof fetch;
  /**
   * How long to wait for the response's headers and, for a non-streamed call, its whole body. A
   * stream's body is bounded by the fetch given (idle-body.ts), not here. Default 120 s.
   */
  timeoutMs?: number;
};

/** Per call: the caller's signal ends the call with {@link LlmUserAbortError}. */
export type CallOptions = { signal?: AbortSignal | undefined };

/**
 * @example
 * const client = new ChatCompletionsClient({ baseURL: 'http://127.0.0.1:11434/v1' });
 * const completion = await client.create({ model: 'llama3', messages: [{ role: 'user', content: 'hi' }] });
 * for await (const chunk of await client.stream({ model, messages })) text += readChunk(chunk).text;
 */
export class ChatCompletionsClient {
  readonly baseURL: string;
  readonly #apiKey: string | undefined;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;

  constructor(options: ChatCompletionsClientOptions = {}) {
    this.baseURL = options.baseURL ?? OPENAI_BASE_URL;
    this.#apiKey = options.apiKey;
    const given = options.fetch;
    // Called unbound: the Workers runtime's fetch throws when called with another `this`.
    this.#fetch = given ? (input, init) => given(input, init) : (input, init) => fetch(input, init);
    this.#timeoutMs = options.timeoutMs ?? 120_000;
  }

  /**
   * One completion, whole. Resolves with the parsed JSON body (`unknown`: read it through
   * completion-shape.ts), or the text of a 2xx answer that is not JSON, as the SDK did. A 2xx JSON
   * body that is an error and no completion (vLLM, LiteLLM, proxies) throws {@link LlmBodyError}.
   */
  async create(body: ChatCompletionRequest, options: CallOptions = {}): Promise<unknown> {
    const call = await this.#send(body, options.signal);
    try {
      const text = await call.read(call.res.text());
      if (!isJson(call.res)) return text;
      if (text === '') return undefined;
      // A JSON type over a body that is not JSON: the text, for completion-shape.ts to describe.
      return bodyOrError(call.res, parseOrText(text));
    } finally {
      call.end();
    }
  }

  /**
   * One completion as a stream of chunks (`unknown` each: read them through completion-shape.ts).
   * Resolves when the headers arrive — the server took the call — and the timeout stops there.
   */
  async stream(body: ChatCompletionRequest, options: CallOptions = {}): Promise<AsyncIterable<unknown>> {
    const call = await this.#send({ ...body, stream: true }, options.signal);
    if (isJson(call.res)) return oneChunk(call);
    call.headersCame();
    return sseChunks(call.res, call.end, options.signal);
  }

  /** Sends the request; resolves with a 2xx response, or throws the matching Llm*Error. */
  async #send(
    body: ChatCompletionRequest & { stream?: true },
    signal: AbortSignal | undefined,
  ): Promise<Pending> {
    if (signal?.aborted) throw new LlmUserAbortError();
    const controller = new AbortController();
    const abort = () => controller.abort();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.#timeoutMs);
    // The caller's signal stays wired to the request for as long as its body is read.
    signal?.addEventListener('abort', abort, { once: true });
    const headersCame = () => clearTimeout(timer);
    const end = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      controller.abort();
    };
    const failure = (cause: unknown): Error => {
      if (signal?.aborted) return new LlmUserAbortError();
      if (timedOut || isTimeout(cause)) return new LlmConnectionTimeoutError({ cause });
      return new LlmConnectionError(undefined, { cause });
    };

    let res: Response;
    try {
      res = await this.#fetch(`${this.baseURL.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(this.#apiKey ? { authorization: `Bearer ${this.#apiKey}` } : {}),
        },
        body: JSON.stringify(body),
        signal: controller.signal,
      });
    } catch (err) {
      end();
      throw failure(err);
    }
    if (!res.ok) {
      try {
        const text = await res
          .text()
          .catch((err: unknown) => (err instanceof Error ? err.message : String(err)));
        throw LlmApiError.fromResponse(res.status, text, res.headers);
      } finally {
        end();
      }
    }
    // Reading the body ends when the timer or the caller aborts, whether or not the runtime's body
    // stream notices; other failures (the idle guard's ToolError, a reset) are left as they are.
    const read = <T>(reading: Promise<T>): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        const stop = () => reject(failure(controller.signal.reason));
        if (controller.signal.aborted) return stop();
        controller.signal.addEventListener('abort', stop, { once: true });
        reading.then(resolve, (err: unknown) => {
          if (controller.signal.aborted) reject(failure(err));
          else
            reject(
              err instanceof Error ? err : new LlmClientError('Reading the response failed', { cause: err }),
            );
        });
      });
    return { res, headersCame, end, read };
  }
}

type Pending = {
  res: Response;
  /** Stops the timeout: a stream's body is bounded by the idle guard instead. */
  headersCame: () => void;
  /** Stops the timeout, unhooks the caller's signal and aborts whatever is left of the request. */
  end: () => void;
  /** The body read, bounded by the timeout and the caller's signal. */
  read: <T>(reading: Promise<T>) => Promise<T>;
};

/** Whether a 2xx answer says its body is JSON (else it is text, or a stream's events). */
function isJson(res: Response): boolean {
  const type = res.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
  return type.includes('application/json') || type.endsWith('+json');
}

/** A 2xx JSON body, or {@link LlmBodyError} when it is an error and no completion. */
function bodyOrError(res: Response, body: unknown): unknown {
  const error = errorInstead(body);
  if (error !== undefined) throw new LlmBodyError(res.status, error, res.headers, statusLike(error));
  return body;
}

/**
 * A stream asked for and a JSON body answered — a server or proxy that ignores `stream: true`, or
 * answers its error in a 2xx body: the error is thrown as from {@link ChatCompletionsClient.create};
 * a whole completion is one chunk (each choice's `message` as its `delta`), so what streams it reads
 * the same text; any other body is described, not read as a stream with nothing in it.
 */
async function oneChunk(call: Pending): Promise<AsyncIterable<unknown>> {
  let body: unknown;
  try {
    body = bodyOrError(call.res, parseOrText(await call.read(call.res.text())));
  } finally {
    call.end();
  }
  const { choices, usage } = (body ?? {}) as { choices?: unknown; usage?: unknown };
  if (!Array.isArray(choices)) {
    const keys = body !== null && typeof body === 'object' ? Object.keys(body).slice(0, 8) : [];
    throw new LlmClientError(
      `Error reading response: a stream was asked for and the server answered JSON that is not a completion (${keys.length ? `its keys: ${keys.map((k) => `"${k}"`).join(', ')}` : typeof body})`,
    );
  }
  const chunk = {
    choices: choices.map((c: unknown) => {
      const { message, ...rest } = (c ?? {}) as { message?: unknown };
      return { ...rest, delta: message ?? {} };
    }),
    ...(usage === undefined ? {} : { usage }),
  };
  // The body is read already: nothing is left to await.
  // eslint-disable-next-line @typescript-eslint/require-await
  return (async function* () {
    yield chunk;
  })();
}

/** The `error` of a body that carries one and no `choices`, else undefined. */
function errorInstead(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { error, choices } = body as { error?: unknown; choices?: unknown };
  return error == null || error === false || Array.isArray(choices) ? undefined : error;
}

function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A runtime's own timeout ("fetch failed" caused by a connect timeout, Deno's "timed out"). */
function isTimeout(err: unknown): boolean {
  const said = (e: unknown) =>
    e instanceof Error ? `${e.name}: ${e.message}` : typeof e === 'string' ? e : '';
  return /timed? ?out/i.test(`${said(err)} ${said((err as { cause?: unknown } | null)?.cause)}`);
}
