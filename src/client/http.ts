/**
 * The client's one way to call the API: JSON in and out, the bearer token, and every non-2xx answer
 * thrown as an {@link EdgeplanApiError} carrying the API's stable `code` and its `Retry-After`. One
 * request per call; retrying-call.ts sends again what is safe to.
 */
import { retryAfterMs } from './retry-after';

/** Where the API is and how to reach it. */
export type ClientOptions = {
  /** e.g. `http://localhost:8787` */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string | undefined;
  /** A fetch of your own (tests, a service binding's `fetch`). */
  fetch?: typeof fetch | undefined;
  /**
   * Gives up on a request with no answer, or whose answer does not finish, after this long
   * (`timeout`, status 0); default {@link DEFAULT_TIMEOUT_MS} (a minute; `planGoal` five, planning
   * takes a while); `0` or `Infinity`: no limit of the client's own. `watch()`'s long-lived socket
   * is not bounded by it, only its opening (30 s there unless this is set).
   */
  timeoutMs?: number | undefined;
  /**
   * The WebSocket constructor `watch()` uses; default the global one (browsers, Node ≥ 22, Workers).
   * Without one, `watch()` polls `/events`.
   */
  WebSocket?: typeof WebSocket | undefined;
  /**
   * Send again, by itself, a request the server refused for now and that is safe to send again
   * (retry-policy.ts: `429`, and `503 deploy_in_progress` / `deletion_pending` / `run_newer_format`;
   * for GETs and `createRun`, any 429/502/503/504), after its `Retry-After`. Default true; false:
   * every refusal is thrown at once.
   */
  retry?: boolean | undefined;
  /** The most times one request is sent again (default 5); 0 is `retry: false`. */
  maxRetries?: number | undefined;
  /**
   * The most one request waits, in all, to be sent again (default 120 000: 2 minutes). A
   * `Retry-After` longer than what is left is not waited out: the server's error is thrown at once.
   */
  maxRetryWaitMs?: number | undefined;
  /** Called before each wait to send a request again: what was refused, and how long the wait is. */
  onRetry?: ((retry: RetryNotice) => void) | undefined;
  /** Stops every request of this client, and every wait to send one again (`aborted`, status 0). */
  signal?: AbortSignal | undefined;
};

/** A request about to be sent again: which, after what refusal, and when. */
export type RetryNotice = {
  method: string;
  path: string;
  /** The refusal being waited out (its `code`, `status`, `retryAfterMs`). */
  error: EdgeplanApiError;
  /** 1 for the first retry. */
  retry: number;
  /** How long the client waits before sending it again. */
  waitMs: number;
};

/**
 * An answer that was not 2xx: its status and the API's error code, message and details (for
 * `invalid_plan`, `details.errors` lists every finding).
 * @example
 * try { await client.getRun('run_x'); } catch (e) { if (e instanceof EdgeplanApiError) console.log(e.status, e.code); }
 */
export class EdgeplanApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    /** What the answer's `Retry-After` asked to wait, in ms; undefined when it had none. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'EdgeplanApiError';
  }

  /**
   * The refusal this answer came after, when the client sent the request again by itself (e.g. a
   * `404` after `503 deletion_pending`: the deletion finished meanwhile).
   */
  retriedAfter?: EdgeplanApiError;
}

/** The request function every method goes through. */
export type Call = <T>(
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  options?: CallOptions,
) => Promise<{ status: number; body: T }>;

/** A request's body, query and extra headers (`Idempotency-Key`). */
export type CallOptions = {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined> | undefined;
  headers?: Record<string, string> | undefined;
  /**
   * Gives up on this call sooner than the client's `timeoutMs` (the shorter of the two holds for each
   * attempt); bounds the whole call, its retries and the waits before them included.
   */
  timeoutMs?: number | undefined;
  /** Bounds each attempt of this call (with the client's `timeoutMs`: the shorter holds). */
  attemptTimeoutMs?: number | undefined;
  /** This call's limit when the client sets no `timeoutMs`; default {@link DEFAULT_TIMEOUT_MS}. */
  defaultTimeoutMs?: number | undefined;
  /** Stops this call (as the client's `signal` does). */
  signal?: AbortSignal | undefined;
  /**
   * The request changes nothing, or the server answers its repeat with the first one's outcome (an
   * `Idempotency-Key`): sent again after any 429/502/503/504, as a GET is (retry-policy.ts).
   */
  idempotent?: boolean | undefined;
};

/**
 * The most of one answer the client reads: the API's largest (a page of events, 8 MiB past a first
 * event of up to 24 MiB; a value of 24 MiB) with room for JSON's escapes. A server sending more is
 * not the API, and reading on would hold all of it in memory.
 */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * How long a request may go unanswered when the client sets no `timeoutMs` — as long as the CLI
 * waits: a server that takes the connection and never answers would otherwise hold its caller
 * forever. A `waitForRun` request asks the server to wait 50 s at most, within it.
 */
export const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * `planGoal`'s limit when the client sets no `timeoutMs`: planning asks a model, repairs its answer
 * and falls back to others, up to three `planning_timeout_s` (60 s by default) in all.
 */
export const DEFAULT_PLANNING_TIMEOUT_MS = 300_000;

/** The base URL without a trailing slash. */
export function baseOf(options: ClientOptions): string {
  return options.baseUrl.replace(/\/+$/, '');
}

/**
 * One request per call, no retries (retrying-call.ts adds them).
 * @example const { body } = await makeCall({ baseUrl })<Run>('GET', '/v1/runs/run_x');
 */
export function makeCall(options: ClientOptions): Call {
  const base = baseOf(options);
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  return async function call<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    {
      body,
      query,
      headers: extra,
      timeoutMs: callTimeoutMs,
      defaultTimeoutMs = DEFAULT_TIMEOUT_MS,
      signal: callSignal,
    }: CallOptions = {},
  ) {
    const headers: Record<string, string> = { ...extra, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) q.set(k, String(v));
    const qs = q.size > 0 ? `?${q.toString()}` : '';
    // 0 and Infinity are no limit (a call's own `timeoutMs` may still set one).
    const limits = [options.timeoutMs ?? defaultTimeoutMs, callTimeoutMs].filter(
      (ms): ms is number => ms !== undefined && ms > 0 && Number.isFinite(ms),
    );
    const timeoutMs = limits.length > 0 ? Math.min(...limits) : undefined;
    const timeout = timeoutMs ? timeLimit(timeoutMs) : undefined;
    const stops = [timeout?.signal, options.signal, callSignal].filter(
      (s): s is AbortSignal => s !== undefined,
    );
    const signal = stops.length > 1 ? AbortSignal.any(stops) : stops[0];
    if (stopped(options.signal, callSignal)) throw aborted(method, path);
    let res: Response | undefined;
    let text: string;
    try {
      res = await doFetch(`${base}${path}${qs}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        ...(signal ? { signal } : {}),
        // The API never redirects. Followed, a redirect would send a POST on as a GET (a 301 from
        // http to https: `createRun` answered with the list of runs) and take another server's
        // answer for the API's; said instead, with where it pointed.
        redirect: 'manual',
      });
      if (isRedirect(res) || (res.status >= 300 && res.status < 400)) {
        await res.body?.cancel().catch(() => undefined);
        throw redirected(base, method, path, res);
      }
      text = await boundedText(res, `${base} answered ${method} ${path} with`);
    } catch (err) {
      if (err instanceof EdgeplanApiError) throw err;
      if (stopped(options.signal, callSignal)) throw aborted(method, path);
      if (timeout?.signal.aborted) {
        const within = `within ${timeoutMs! / 1000} s`;
        // A body that drips and never ends is not a server that never answered.
        throw new EdgeplanApiError(
          0,
          'timeout',
          res === undefined
            ? `No answer from ${base} to ${method} ${path} ${within}`
            : `${base} began answering ${method} ${path} (${res.status}) but the answer did not finish ${within}`,
        );
      }
      throw new EdgeplanApiError(0, 'unreachable', `Cannot reach ${base}: ${whyUnreachable(err)}`);
    } finally {
      timeout?.clear();
    }
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      const type = res.headers.get('content-type');
      throw new EdgeplanApiError(
        res.status,
        'invalid_response',
        `${base} answered ${method} ${path} with ${res.status}${res.statusText ? ` ${res.statusText}` : ''}` +
          ` that is not the API's JSON${type ? ` (${type})` : ''} — a proxy's page, or not an edgeplan server: ` +
          // On one line: a page's own line breaks would split the message a terminal or a log shows.
          oneLine(text.slice(0, 200)),
        undefined,
        // A proxy's page for 503 carries the wait too.
        res.ok ? undefined : retryAfterMs(res.headers.get('retry-after')),
      );
    }
    if (!res.ok) {
      const err = (json as { error?: { code?: string; message?: string; details?: unknown } } | null)?.error;
      throw new EdgeplanApiError(
        res.status,
        err?.code ?? 'http_error',
        err?.message ?? res.statusText,
        err?.details,
        retryAfterMs(res.headers.get('retry-after')),
      );
    }
    // Every answer of the API is a JSON object: anything else is not the API's, and read as one
    // (`run.steps` of a `[]`) it would fail later with a TypeError naming neither server nor request.
    if (typeof json !== 'object' || json === null || Array.isArray(json))
      throw new EdgeplanApiError(
        res.status,
        'invalid_response',
        `${base} answered ${method} ${path} with ${res.status} and ${json === null ? (text ? 'JSON null' : 'no body') : Array.isArray(json) ? 'a JSON array' : `a JSON ${typeof json}`}, not the JSON object the API answers with: is ${base} an edgeplan server?`,
      );
    return { status: res.status, body: json as T };
  };
}

/**
 * A signal aborted after `ms`, and its timer's clearing: not `AbortSignal.timeout`, whose timer
 * cannot be stopped once the answer came (nor moved by a test's fake clock).
 */
function timeLimit(ms: number): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`No answer within ${ms} ms`, 'TimeoutError')),
    ms,
  );
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/** A browser's answer to a redirect not followed (the Workers types do not name the type). */
const isRedirect = (res: Response) => (res.type as string) === 'opaqueredirect';

/** A redirect's error: the API never sends one, so the base URL points somewhere else. */
function redirected(base: string, method: string, path: string, res: Response): EdgeplanApiError {
  const to = res.headers.get('location');
  // A browser hides a redirect's status and Location (`opaqueredirect`, status 0).
  const what = isRedirect(res) ? 'a redirect' : `${res.status} redirect${to ? ` to ${to}` : ''}`;
  return new EdgeplanApiError(
    res.status,
    'invalid_response',
    `${base} answered ${method} ${path} with ${what}, which the API never sends: not followed. ` +
      `Point the client at the API's own address${to ? ' (where it redirects, if that is it)' : ''}` +
      ` — or sign in again, if a sign-in page (Cloudflare Access) sent it.`,
  );
}

/**
 * The answer's body as text, at most {@link MAX_RESPONSE_BYTES}: past that, reading stops (the rest
 * is never held) and the error says so.
 */
async function boundedText(res: Response, answered: string): Promise<string> {
  const tooLarge = () =>
    new EdgeplanApiError(
      res.status,
      'invalid_response',
      `${answered} more than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB, the most the client reads (the API's largest answer is far less): not read`,
    );
  const declared = Number(res.headers.get('content-length'));
  if (declared > MAX_RESPONSE_BYTES) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!res.body) return '';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let bytes = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > MAX_RESPONSE_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** Whether the caller stopped the call (the client's signal, or the call's). */
export const stopped = (...signals: (AbortSignal | undefined)[]) => signals.some((s) => s?.aborted === true);

/** The error of a call its caller stopped. */
export function aborted(method: string, path: string, why = ''): EdgeplanApiError {
  return new EdgeplanApiError(0, 'aborted', `${method} ${path} was stopped by its caller's signal${why}`);
}

/** A failed fetch's reason with its cause, where the runtime gives one: `fetch failed (connect ECONNREFUSED …)`. */
function whyUnreachable(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: { message?: unknown; code?: unknown } }).cause;
  // One line (OpenSSL's errors end in a line break), and a TLS handshake with a plain-HTTP port said so.
  const detail = oneLine(
    typeof cause?.message === 'string' ? cause.message : typeof cause?.code === 'string' ? cause.code : '',
  );
  const message = oneLine(err.message);
  const why = detail && !message.includes(detail) ? `${message} (${detail})` : message;
  return /wrong version number|packet length too long/i.test(why)
    ? `${why} — TLS to a server that speaks plain HTTP: is it http://, not https://?`
    : why;
}

/** `text` with its line breaks (and the white space around them) as one space; other text as it was. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]\s*$/, '').replace(/\s*[\r\n]\s*/g, ' ');
}
