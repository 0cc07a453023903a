/**
 * The client's one way to call the API: JSON in and out, the bearer token, and every non-2xx answer
 * thrown as an {@link EdgeplanApiError} carrying the API's stable `code`.
 */

/** Where the API is and how to reach it. */
export type ClientOptions = {
  /** e.g. `http://localhost:8787` */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** A fetch of your own (tests, a service binding's `fetch`). */
  fetch?: typeof fetch;
  /**
   * The WebSocket constructor `watch()` uses; default the global one (browsers, Node ≥ 22, Workers).
   * Without one, `watch()` polls `/events`.
   */
  WebSocket?: typeof WebSocket;
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
  method: 'GET' | 'POST',
  path: string,
  options?: { body?: unknown; query?: Record<string, string | number | boolean | undefined> },
) => Promise<{ status: number; body: T }>;

/** The base URL without a trailing slash. */
export function baseOf(options: ClientOptions): string {
  return options.baseUrl.replace(/\/+$/, '');
}

export function makeCall(options: ClientOptions): Call {
  const base = baseOf(options);
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  return async function call<T>(
    method: 'GET' | 'POST',
    path: string,
    { body, query }: { body?: unknown; query?: Record<string, string | number | boolean | undefined> } = {},
  ) {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) q.set(k, String(v));
    const qs = q.size > 0 ? `?${q.toString()}` : '';
    let res: Response;
    try {
      res = await doFetch(`${base}${path}${qs}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new EdgeplanApiError(0, 'unreachable', `Cannot reach ${base}: ${why}`);
    }
    const text = await res.text();
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
