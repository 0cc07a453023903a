/**
 * `edgeplan/client`: a small typed client of the HTTP API — start a run, read it, read its events.
 * Runs anywhere `fetch` does (Node ≥ 18, browsers, Workers).
 */
import type { CreatedRun, CreateRunRequest, Run, RunEvent } from './types';

export type { ApiErrorBody, CreatedRun, CreateRunRequest, Run, RunEvent } from './types';

/** Where the API is and how to reach it. */
export type ClientOptions = {
  /** e.g. `http://localhost:8787` */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** A fetch of your own (tests, a service binding's `fetch`). */
  fetch?: typeof fetch;
};

/**
 * An answer that was not 2xx: its status and the API's error code and message.
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

export type EdgeplanClient = {
  /** `POST /v1/runs`. */
  createRun(body: CreateRunRequest): Promise<CreatedRun>;
  /** `GET /v1/runs/:id`. */
  getRun(runId: string): Promise<Run>;
  /** `GET /v1/runs/:id/events?after=` — the trace after `after` (default 0). */
  events(runId: string, options?: { after?: number; limit?: number }): Promise<RunEvent[]>;
};

/**
 * A client of one edgeplan API.
 * @example
 * const client = createClient({ baseUrl: 'http://localhost:8787' });
 * const { run_id } = await client.createRun({ plan: { goal: 'hi', steps: [{ id: 'a', action: 'demo.echo' }] } });
 * console.log((await client.getRun(run_id)).status);
 */
export function createClient(options: ClientOptions): EdgeplanClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const res = await doFetch(`${base}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    const json: unknown = text ? JSON.parse(text) : null;
    if (!res.ok) {
      const err = (json as { error?: { code?: string; message?: string; details?: unknown } } | null)?.error;
      throw new EdgeplanApiError(
        res.status,
        err?.code ?? 'http_error',
        err?.message ?? res.statusText,
        err?.details,
      );
    }
    return json as T;
  }

  const id = (runId: string) => encodeURIComponent(runId);
  return {
    createRun: (body) => call<CreatedRun>('POST', '/v1/runs', body),
    getRun: (runId) => call<Run>('GET', `/v1/runs/${id(runId)}`),
    events: async (runId, { after = 0, limit } = {}) => {
      const q = new URLSearchParams({ after: String(after) });
      if (limit !== undefined) q.set('limit', String(limit));
      const r = await call<{ events: RunEvent[] }>('GET', `/v1/runs/${id(runId)}/events?${q.toString()}`);
      return r.events;
    },
  };
}
