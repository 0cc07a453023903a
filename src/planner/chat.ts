/**
 * One planning call to an OpenAI-compatible Chat Completions endpoint, asking for structured output
 * and stepping down when the server rejects it: `json_schema` (non-strict, from the plan schema) →
 * `json_object` → plain text. Errors come back as data with the stable codes of `toLlmError`.
 */
import type OpenAI from 'openai';
import { toErrorInfo } from '../errors';
import type { ErrorInfo } from '../errors';
import { toLlmError } from '../executor/tools/openai-client';

/** How the answer's format was requested, strictest first. */
export type FormatMode = 'json_schema' | 'json_object' | 'text';

/** Every mode, strictest first. */
export const FORMAT_MODES: readonly FormatMode[] = ['json_schema', 'json_object', 'text'];

export type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

export type TokenCount = { prompt: number; completion: number };

export type ChatCall = {
  client: OpenAI;
  /** For error messages; `undefined` is OpenAI's own API. */
  baseURL: string | undefined;
  model: string;
  messages: ChatMessage[];
  temperature?: number | undefined;
  /** The answer's JSON schema for `json_schema` mode. */
  schema: Record<string, unknown>;
  /** The strictest mode to try first; less strict ones follow when the server rejects it. */
  mode: FormatMode;
  signal?: AbortSignal | undefined;
  /** Retries of a call that failed in transit (timeout, connection, 429, 5xx), with backoff. */
  retries?: number;
  /** Milliseconds since some fixed point, for latency. */
  now: () => number;
  /** Redacted from the server's error messages (the API key among them). */
  secrets?: readonly string[];
};

export type ChatAnswer =
  | {
      ok: true;
      content: string;
      /** What the model declined to do, when it refused instead of answering. */
      refusal?: string;
      model: string;
      usage: TokenCount;
      mode: FormatMode;
      latency_ms: number;
    }
  | { ok: false; error: ErrorInfo; mode: FormatMode; usage: TokenCount; latency_ms: number };

/**
 * Sends the conversation. A 400/422 while asking for a structured format is taken as "this server
 * does not support it" and the next mode is tried; the answer says which mode worked, so the caller
 * can start there next time.
 * @example const a = await completePlanChat({ client, baseURL, model, messages, schema, mode: 'json_schema', now: Date.now });
 */
export async function completePlanChat(call: ChatCall): Promise<ChatAnswer> {
  const start = call.now();
  let index = FORMAT_MODES.indexOf(call.mode);
  let retries = call.retries ?? 0;
  for (let attempt = 0; ; attempt++) {
    const mode = FORMAT_MODES[index]!;
    try {
      const completion = await call.client.chat.completions.create(
        {
          model: call.model,
          messages: call.messages,
          ...(call.temperature === undefined ? {} : { temperature: call.temperature }),
          ...responseFormat(mode, call.schema),
        },
        { signal: call.signal },
      );
      return { ...readCompletion(completion, call.model), mode, latency_ms: call.now() - start };
    } catch (err) {
      if (mode !== 'text' && isFormatRejection(err)) {
        index++;
        continue;
      }
      const error = toErrorInfo(
        toLlmError(err, { model: call.model, baseURL: call.baseURL, secrets: call.secrets }),
      );
      if (error.retryable && retries > 0 && !call.signal?.aborted) {
        retries--;
        await backoff(RETRY_BASE_MS * 2 ** attempt, call.signal);
        continue;
      }
      return { ok: false, error, mode, usage: { prompt: 0, completion: 0 }, latency_ms: call.now() - start };
    }
  }
}

/** The first retry's wait; each next one doubles. */
const RETRY_BASE_MS = 500;

/** Waits `ms`, or less when `signal` aborts (the caller then sees the abort on its next call). */
function backoff(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

function responseFormat(
  mode: FormatMode,
  schema: Record<string, unknown>,
): Pick<OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming, 'response_format'> {
  if (mode === 'json_schema') {
    return { response_format: { type: 'json_schema', json_schema: { name: 'plan', schema, strict: false } } };
  }
  if (mode === 'json_object') return { response_format: { type: 'json_object' } };
  return {};
}

/** The text of the first choice: content, else a function call's arguments (some servers answer so). */
function readCompletion(
  completion: OpenAI.Chat.Completions.ChatCompletion,
  requested: string,
): { ok: true; content: string; refusal?: string; model: string; usage: TokenCount } {
  const message = completion.choices[0]?.message;
  const call = message?.tool_calls?.[0];
  const content =
    message?.content ?? (call && 'function' in call ? call.function.arguments : undefined) ?? '';
  const usage = {
    prompt: completion.usage?.prompt_tokens ?? 0,
    completion: completion.usage?.completion_tokens ?? 0,
  };
  const out: { ok: true; content: string; refusal?: string; model: string; usage: TokenCount } = {
    ok: true,
    content,
    model: completion.model || requested,
    usage,
  };
  if (message?.refusal) out.refusal = message.refusal;
  return out;
}

function isFormatRejection(err: unknown): boolean {
  const status = (err as { status?: unknown } | null)?.status;
  return status === 400 || status === 422;
}
