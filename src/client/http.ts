/**
 * The client's one way to call the API: JSON in and out, the bearer token, and every non-2xx answer
 * thrown as an {@link EdgeplanApiError} carrying the API's stable `code`.
 */

/** Where the API is and how to reach it. */
export type ClientOptions = {
  /** e.g. `http://localhost:8787` */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string | undefined;
  /** A fetch of your own (tests, a service binding's `fetch`). */
  fetch?: typeof fetch | undefined;
  /**
   * Gives up on a request with no answer after this long (`timeout`, status 0); default: no limit of
   * the client's own. `watch()`'s long-lived socket is not bounded by it.
   */
  timeoutMs?: number | undefined;
  /**
   * The WebSocket constructor `watch()` uses; default the global one (browsers, Node ≥ 22, Workers).
   * Without one, `watch()` polls `/events`.
   */
  WebSocket?: typeof WebSocket | undefined;
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
  ) {
    super(message);
    this.name = 'EdgeplanApiError';
  }
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
  /** Gives up on this request sooner than the client's `timeoutMs` (the shorter of the two holds). */
  timeoutMs?: number | undefined;
};

/** The base URL without a trailing slash. */
export function baseOf(options: ClientOptions): string {
  return options.baseUrl.replace(/\/+$/, '');
}

export function makeCall(options: ClientOptions): Call {
  const base = baseOf(options);
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  return async function call<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    { body, query, headers: extra, timeoutMs: callTimeoutMs }: CallOptions = {},
  ) {
    const headers: Record<string, string> = { ...extra, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) q.set(k, String(v));
    const qs = q.size > 0 ? `?${q.toString()}` : '';
    const limits = [options.timeoutMs, callTimeoutMs].filter((ms): ms is number => !!ms && ms > 0);
    const timeoutMs = limits.length > 0 ? Math.min(...limits) : undefined;
    const timeout = timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined;
    let res: Response;
    let text: string;
    try {
      res = await doFetch(`${base}${path}${qs}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        ...(timeout ? { signal: timeout } : {}),
      });
      text = await res.text();
    } catch (err) {
      if (timeout?.aborted)
        throw new EdgeplanApiError(
          0,
          'timeout',
          `No answer from ${base} to ${method} ${path} within ${timeoutMs! / 1000} s`,
        );
      throw new EdgeplanApiError(0, 'unreachable', `Cannot reach ${base}: ${whyUnreachable(err)}`);
    }
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      throw new EdgeplanApiError(
        res.status,
        'invalid_response',
        `${method} ${path}: not JSON: ${text.slice(0, 200)}`,
      );
    }
    if (!res.ok) {
      const err = (json as { error?: { code?: string; message?: string; details?: unknown } } | null)?.error;
      throw new EdgeplanApiError(
        res.status,
        err?.code ?? 'http_error',
        err?.message ?? res.statusText,
        err?.details,
      );
    }
    return { status: res.status, body: json as T };
  };
}

/** A failed fetch's reason with its cause, where the runtime gives one: `fetch failed (connect ECONNREFUSED …)`. */
function whyUnreachable(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: { message?: unknown; code?: unknown } }).cause;
  const detail =
    typeof cause?.message === 'string' ? cause.message : typeof cause?.code === 'string' ? cause.code : '';
  return detail && !err.message.includes(detail) ? `${err.message} (${detail})` : err.message;
}
