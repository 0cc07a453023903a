/**
 * How a Chat Completions call fails, before `toLlmError` (openai-client.ts) gives the failure a
 * stable code. The classes, their fields and their messages follow the openai SDK's (APIError,
 * APIConnectionError, APIConnectionTimeoutError, APIUserAbortError, OpenAIError), which this client
 * replaced: `llm-error-text.ts` reads `status`, `error` and `message` as the SDK set them, and the
 * planner reads `retry-after-ms` / `retry-after` from `headers`. They share one file because they
 * are one hierarchy, read together by one `instanceof` chain.
 */

/** Any failure of the LLM client itself (the SDK's `OpenAIError`): a stream it could not read, say. */
export class LlmClientError extends Error {
  override name = 'LlmClientError';
}

/**
 * The server answered with an error: an error status (`status` set), or an error inside a 2xx
 * stream (`status` undefined, as the SDK has it). `error` is the parsed body's `error` field, the
 * whole JSON body when it has none, or undefined for a text body — whose text is then the message.
 */
export class LlmApiError extends LlmClientError {
  override name = 'LlmApiError';
  readonly status: number | undefined;
  readonly error: unknown;
  readonly headers: Headers | undefined;

  constructor(
    status: number | undefined,
    error: unknown,
    message: string | undefined,
    headers: Headers | undefined,
  ) {
    super(apiErrorMessage(status, error, message));
    this.status = status;
    this.error = error;
    this.headers = headers;
  }

  /**
   * The error for an error response's status, body text and headers, as the SDK made it: a JSON body
   * is parsed (its `error` field, or the whole object when it has none), any other text is quoted.
   * @example LlmApiError.fromResponse(404, '404 page not found', new Headers()).message // '404 404 page not found'
   */
  static fromResponse(status: number, text: string, headers: Headers): LlmApiError {
    const json = safeJson(text);
    const body =
      json !== null && typeof json === 'object' && (json as { error?: unknown }).error == null
        ? { error: json }
        : json;
    const error = body !== null && typeof body === 'object' ? (body as { error?: unknown }).error : undefined;
    return new LlmApiError(status, error, json ? undefined : text, headers);
  }
}

/**
 * A 2xx that carries an error instead of a completion: a JSON body that is an error and no completion
 * — `{"error": {"message", "type", "code"}}`, as vLLM, LiteLLM and some proxies answer a failure — or
 * (`inStream`) an error sent inside a stream, an `event: error` or a chunk with an `error` field, as
 * OpenAI and others do when the model fails midway. `status` stays undefined (the HTTP status said
 * success); `httpStatus` is the status it came with, and `likeStatus` the error status its code or
 * words stand for (llm-error-text.ts's `statusLike`), by which `toLlmError` classifies it as it would
 * that HTTP error — a rate limit or an overload retryable, wherever it was said.
 */
export class LlmBodyError extends LlmApiError {
  override name = 'LlmBodyError';

  constructor(
    readonly httpStatus: number,
    error: unknown,
    headers: Headers,
    readonly likeStatus: number | undefined,
    readonly inStream = false,
  ) {
    super(undefined, error, undefined, headers);
  }
}

/** The request never got an answer: DNS, a refused connection, a reset before the headers. */
export class LlmConnectionError extends LlmClientError {
  override name = 'LlmConnectionError';
  constructor(message = 'Connection error.', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** No headers came within the client's timeout (or a non-streamed body did not finish in it). */
export class LlmConnectionTimeoutError extends LlmConnectionError {
  override name = 'LlmConnectionTimeoutError';
  constructor(options?: { cause?: unknown }) {
    super('Request timed out.', options);
  }
}

/** The caller's AbortSignal ended the call. */
export class LlmUserAbortError extends LlmClientError {
  override name = 'LlmUserAbortError';
  constructor() {
    super('Request was aborted.');
  }
}

/** `"<status> <the server's message>"`, the SDK's format (`llm-error-text.ts` strips the status back off). */
function apiErrorMessage(status: number | undefined, error: unknown, message: string | undefined): string {
  const said = (error as { message?: unknown } | null | undefined)?.message;
  const msg = said
    ? typeof said === 'string'
      ? said
      : JSON.stringify(said)
    : error
      ? JSON.stringify(error)
      : message;
  if (status && msg) return `${status} ${msg}`;
  if (status) return `${status} status code (no body)`;
  return msg || '(no status code or body)';
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
