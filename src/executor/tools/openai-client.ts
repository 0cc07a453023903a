/**
 * The OpenAI-compatible client shared by `llm.call` and the planner: configuration from the
 * environment, one way to build the client, and its errors mapped to stable, retry-aware codes.
 */
import { retryAfterMs } from '../../client/retry-after';
import { ToolError } from '../../errors';
import { redactSecrets } from '../../planner/redact';
import { ChatCompletionsClient } from './chat-completions-client';
import { connectionCause } from './connection-cause';
import { idleBodyFetch } from './idle-body';
import { errorCodes, hintFor, isHtml, providerWords } from './llm-error-text';
import { shownUrl } from './shown-url';
import {
  LlmApiError,
  LlmBodyError,
  LlmClientError,
  LlmConnectionError,
  LlmConnectionTimeoutError,
  LlmUserAbortError,
} from './llm-errors';

export { shownUrl } from './shown-url';

/** The variables the LLM configuration is read from (strings; anything else counts as unset). */
export type LlmEnv = {
  readonly OPENAI_API_KEY?: unknown;
  readonly OPENAI_BASE_URL?: unknown;
  readonly PLANNER_MODEL?: unknown;
};

/** The resolved LLM endpoint and default model. */
export type LlmConfig = {
  apiKey: string | undefined;
  /** `undefined` means OpenAI's own API. */
  baseURL: string | undefined;
  model: string;
};

/** The model used when neither the call nor PLANNER_MODEL names one. */
export const DEFAULT_MODEL = 'gpt-4o-mini';

/** What the not-configured error says, wherever it is raised. */
export const LLM_NOT_CONFIGURED_MESSAGE =
  'No LLM is configured. Set OPENAI_API_KEY (OpenAI), or OPENAI_BASE_URL for an OpenAI-compatible ' +
  'endpoint (Workers AI, AI Gateway, Ollama, vLLM; with OPENAI_API_KEY if it needs one), and ' +
  `optionally PLANNER_MODEL (default ${DEFAULT_MODEL}).`;

/**
 * The LLM configuration, or `null` when neither OPENAI_API_KEY nor OPENAI_BASE_URL is set.
 * @example const cfg = readLlmConfig(env); if (!cfg) return rulesOnlyPlanner();
 */
export function readLlmConfig(env: LlmEnv): LlmConfig | null {
  const apiKey = nonEmpty(env.OPENAI_API_KEY);
  const baseURL = nonEmpty(env.OPENAI_BASE_URL);
  if (!apiKey && !baseURL) return null;
  return { apiKey, baseURL, model: nonEmpty(env.PLANNER_MODEL) ?? DEFAULT_MODEL };
}

/**
 * A Chat Completions client for the configured endpoint, without retries (the run's retry policy
 * owns retries). Throws a non-retryable `llm_not_configured` ToolError when no LLM is configured.
 * @example
 * const client = createOpenAIClient(env, ctx.fetch);
 * const res = await client.create({ model, messages }, { signal });
 */
export function createOpenAIClient(
  env: LlmEnv,
  fetchImpl?: typeof fetch,
  opts: { timeoutMs?: number } = {},
): ChatCompletionsClient {
  const config = readLlmConfig(env);
  if (!config) throw new ToolError('llm_not_configured', LLM_NOT_CONFIGURED_MESSAGE, { retryable: false });
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const target = `LLM at ${config.baseURL ?? 'api.openai.com'}`;
  // The client's timeout covers the wait for headers; the body is held to the same time between chunks.
  const doFetch = idleBodyFetch((input, init) => (fetchImpl ?? fetch)(input, init), timeoutMs, target);
  return new ChatCompletionsClient({
    apiKey: config.apiKey,
    baseURL: config.baseURL,
    fetch: doFetch,
    timeoutMs,
  });
}

/**
 * Where a call went, for error messages; `secrets` (the API key among them, `secretsOf(env)`) are
 * redacted from whatever the server said.
 */
export type LlmCallSite = { model: string; baseURL?: string | undefined; secrets?: readonly string[] };

/**
 * Maps a client error (llm-errors.ts) to a ToolError with a stable code: 429, 408, 5xx, timeouts and connection
 * failures are retryable; other 4xx (bad request, auth, unknown model) are not; a 2xx whose body is
 * an error is classified by the status its code or words stand for (a rate limit's: retryable), and
 * a connection failure says why (the runtime's cause, URLs cut to origin and path). Other values pass
 * through unchanged. The server's words are quoted with the API key and credential-shaped strings
 * redacted: some OpenAI-compatible servers echo the key they refused ("Incorrect API key provided:
 * sk-…"), and the message ends up in step errors, events and the dashboard.
 */
export function toLlmError(err: unknown, where: LlmCallSite): unknown {
  const mapped = mapLlmError(err, where);
  if (!(mapped instanceof ToolError)) return mapped;
  const message = redactSecrets(mapped.message, where.secrets);
  const retryAfter = mapped.retryable ? askedWaitMs(err) : undefined;
  return message === mapped.message && retryAfter === undefined
    ? mapped
    : new ToolError(mapped.code, message, { retryable: mapped.retryable, retryAfterMs: retryAfter });
}

/**
 * How long the server asked to wait, from `retry-after-ms` (OpenAI's) or `retry-after` (seconds or an
 * HTTP date); undefined when it did not say.
 * @example askedWaitMs(new LlmApiError(429, undefined, 'slow down', new Headers({ 'retry-after': '2' }))) // 2000
 */
export function askedWaitMs(err: unknown, now = Date.now()): number | undefined {
  const headers = (err as { headers?: unknown } | null)?.headers;
  if (!(headers instanceof Headers)) return undefined;
  const ms = Number(headers.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  return retryAfterMs(headers.get('retry-after'), now);
}

function mapLlmError(err: unknown, where: LlmCallSite): unknown {
  const target = `${where.baseURL === undefined ? 'api.openai.com' : shownUrl(where.baseURL)} (model ${where.model})`;
  if (err instanceof LlmConnectionTimeoutError) {
    return new ToolError('timeout', `LLM request to ${target} timed out`);
  }
  if (err instanceof LlmUserAbortError)
    return new ToolError('aborted', `LLM request to ${target} was aborted`);
  if (err instanceof LlmConnectionError) {
    // The runtime's reason (ECONNREFUSED, ENOTFOUND, a certificate's), not only "Connection error.".
    const why = connectionCause(err) || err.message;
    return new ToolError('llm_unreachable', `Could not reach the LLM at ${target}: ${why}`);
  }
  if (err instanceof LlmBodyError) {
    // A success status over an error body: classified as the error status it stands for would be.
    const words = `${providerWords(err)}${errorCodes(err.error)}`;
    const msg = err.inStream
      ? `LLM at ${target} sent an error inside its ${err.httpStatus} stream: ${words}`
      : `LLM at ${target} answered ${err.httpStatus} with an error instead of a completion: ${words}`;
    if (err.likeStatus === undefined) return new ToolError('llm_error', msg, { retryable: false });
    return byStatus(err.likeStatus, msg, words, false);
  }
  if (err instanceof LlmApiError && typeof err.status === 'number') {
    // The server's own words, whichever shape its error body has (OpenAI's, Ollama's, Cloudflare's
    // `errors` array, a proxy's HTML page), and what to change when the status says.
    const words = providerWords(err);
    const html = isHtml(typeof err.error === 'string' ? err.error : err.message.replace(/^\d+ /, ''));
    return byStatus(err.status, `LLM at ${target} answered ${err.status} ${words}`, words, html);
  }
  if (err instanceof LlmClientError) {
    return new ToolError('llm_error', `LLM call to ${target} failed: ${err.message}`, { retryable: false });
  }
  return err;
}

/** The error an HTTP error status stands for: 408, 429 and 5xx retryable, other 4xx not. */
function byStatus(s: number, msg: string, words: string, html: boolean): ToolError {
  if (s === 408) return new ToolError('timeout', msg);
  if (s === 429) return new ToolError('llm_rate_limited', msg);
  if (s >= 500) return new ToolError('llm_server_error', msg);
  if (s === 401 || s === 403) {
    return new ToolError('llm_auth_failed', `${msg}${hintFor(s, words, html)}`, { retryable: false });
  }
  return new ToolError('llm_bad_request', `${msg}${hintFor(s, words, html)}`, { retryable: false });
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
