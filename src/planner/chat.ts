/**
 * One planning call to an OpenAI-compatible Chat Completions endpoint, asking for structured output
 * and stepping down when the server rejects it: `json_schema` (non-strict, from the plan schema) →
 * `json_object` → plain text. Errors come back as data with the stable codes of `toLlmError`.
 */
import { toErrorInfo } from '../errors';
import type { ErrorInfo } from '../errors';
import type { ChatCompletionsClient } from '../executor/tools/chat-completions-client';
import type { ChatMessage, ResponseFormat } from '../executor/tools/chat-completions-types';
import { BASE_URL_HINT } from '../executor/tools/llm-error-text';
import { LlmBodyError } from '../executor/tools/llm-errors';
import { shownUrl, toLlmError } from '../executor/tools/openai-client';
import { readCompletion, type CompletionRead } from './completion-shape';
import { redactSecrets } from './redact';

/** How the answer's format was requested, strictest first. */
export type FormatMode = 'json_schema' | 'json_object' | 'text';

/** Every mode, strictest first. */
export const FORMAT_MODES: readonly FormatMode[] = ['json_schema', 'json_object', 'text'];

export type { ChatMessage };

export type TokenCount = {
  prompt: number;
  completion: number;
  /** The server never said (a stream cut off before its usage): estimated from the text (token-estimate.ts). */
  estimated?: true;
};

export type ChatCall = {
  client: ChatCompletionsClient;
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
  /** Retries of a call that failed in transit (connection, 429, 5xx; not a timeout), with backoff. */
  retries?: number;
  /** Milliseconds since some fixed point, for latency. */
  now: () => number;
  /** Redacted from the server's error messages (the API key among them). */
  secrets?: readonly string[];
};

/** A call the server answered with a completion: what it said, the format that worked, how long it took. */
export type ChatAnswerOk = Extract<CompletionRead, { ok: true }> & { mode: FormatMode; latency_ms: number };

export type ChatAnswer =
  ChatAnswerOk | { ok: false; error: ErrorInfo; mode: FormatMode; usage: TokenCount; latency_ms: number };

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
      const completion = await call.client.create(
        {
          model: call.model,
          messages: call.messages,
          ...(call.temperature === undefined ? {} : { temperature: call.temperature }),
          ...responseFormat(mode, call.schema),
        },
        { signal: call.signal },
      );
      const answer = answerOf(completion, call);
      // A completion without choices was answered, and says what it cost: its tokens count.
      if ('error' in answer)
        return { ok: false, error: answer.error, mode, usage: answer.usage, latency_ms: call.now() - start };
      return { ...answer, mode, latency_ms: call.now() - start };
    } catch (err) {
      if (mode !== 'text' && isFormatRejection(err)) {
        index++;
        continue;
      }
      const error = toErrorInfo(
        toLlmError(err, { model: call.model, baseURL: call.baseURL, secrets: call.secrets }),
      );
      // A server that says when to come back (429/503 Retry-After) is waited for — unless that is
      // longer than a retry is worth, then the next model is tried instead.
      const asked = error.retry_after_ms;
      // A call that timed out already took the whole of planning_timeout_s: trying the same model
      // again would spend the planning deadline (three timeouts) before any fallback model is asked.
      if (
        error.retryable &&
        error.code !== 'timeout' &&
        retries > 0 &&
        !call.signal?.aborted &&
        (asked ?? 0) <= MAX_RETRY_AFTER_MS
      ) {
        retries--;
        await backoff(Math.max(RETRY_BASE_MS * 2 ** attempt, asked ?? 0), call.signal);
        continue;
      }
      // Said, so a user whose only model is rate-limited knows why it was not waited for.
      if (asked !== undefined && asked > MAX_RETRY_AFTER_MS) {
        error.message += ` (it asked to be called again in ${Math.ceil(asked / 1000)} s — Retry-After — longer than planning waits, ${MAX_RETRY_AFTER_MS / 1000} s: add PLANNER_FALLBACK_MODELS, or retry the run later)`;
      }
      return { ok: false, error, mode, usage: NO_TOKENS, latency_ms: call.now() - start };
    }
  }
}

const NO_TOKENS: TokenCount = { prompt: 0, completion: 0 };

/** The first retry's wait; each next one doubles. */
const RETRY_BASE_MS = 500;
/** The longest Retry-After waited for before a retry; a longer one moves on (next model). */
export const MAX_RETRY_AFTER_MS = 20_000;

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
): { response_format?: ResponseFormat } {
  if (mode === 'json_schema') {
    return { response_format: { type: 'json_schema', json_schema: { name: 'plan', schema, strict: false } } };
  }
  if (mode === 'json_object') return { response_format: { type: 'json_object' } };
  return {};
}

/**
 * The answer of a completion, or a call error naming what came instead (see completion-shape.ts) with
 * the tokens it says it cost.
 */
function answerOf(
  completion: unknown,
  call: ChatCall,
): Omit<ChatAnswerOk, 'mode' | 'latency_ms'> | { error: ErrorInfo; usage: TokenCount } {
  const read = readCompletion(completion, call.model);
  if (read.ok) {
    const { ok: _ok, ...rest } = read;
    return { ok: true, ...rest };
  }
  const target = `${call.baseURL === undefined ? 'api.openai.com' : shownUrl(call.baseURL)} (model ${call.model})`;
  if (read.kind === 'no_choices') {
    const error: ErrorInfo = {
      code: 'llm_empty_response',
      message: `LLM at ${target} answered a completion with no choices (servers do when a content filter blocks the prompt or the answer)`,
      retryable: false,
    };
    return { error, usage: read.usage };
  }
  const error: ErrorInfo = {
    code: 'llm_invalid_response',
    message: redactSecrets(
      `LLM at ${target} answered ${read.what} instead of a chat completion — ${BASE_URL_HINT}`,
      call.secrets,
    ),
    retryable: false,
  };
  return { error, usage: NO_TOKENS };
}

/** A 400 or 422 — or a 2xx error body that stands for one (vLLM's `code: 400`) — to a structured call. */
function isFormatRejection(err: unknown): boolean {
  const status = err instanceof LlmBodyError ? err.likeStatus : (err as { status?: unknown } | null)?.status;
  return status === 400 || status === 422;
}
