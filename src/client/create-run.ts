/**
 * `createRun` made safe to retry: every attempt carries one `Idempotency-Key` (the caller's, or one
 * made for the call), so a request whose answer was lost — the connection dropped, or the client's
 * own timeout — is sent again and answered with the run the first attempt created, never a second
 * run. Answers that never came are retried here; a refusal the server says to send again
 * (`503 deploy_in_progress`, `429`, …) is retried by the client's call (retrying-call.ts) with the
 * same key; any other answer the API gave is the outcome.
 */
import { EdgeplanApiError, type Call } from './http';
import type { CreatedRun, CreateRunRequest } from './types';

/** How `createRun` sends its request. */
export type CreateRunOptions = {
  /**
   * Sent as `Idempotency-Key` (1–255 printable ASCII characters). Give the same key when the same run
   * may be asked for again — a script that is run again after a crash, say; by default every call
   * makes a new one, which makes its own retries safe.
   */
  idempotencyKey?: string | undefined;
  /** How many times a request with no answer is sent again (default 2); 0: never. */
  retries?: number | undefined;
  /**
   * The most the call takes in all — every attempt and the waits between them — before it gives up
   * with `timeout` (status 0), its message naming the key to send again; default: each attempt is
   * bounded by the client's `timeoutMs` only. A wait the server asks for (`Retry-After`) that would end
   * past it is not begun: its error is thrown at once.
   */
  timeoutMs?: number | undefined;
  /** Bounds each attempt (with the client's `timeoutMs`: the shorter holds); default: that alone. */
  attemptTimeoutMs?: number | undefined;
  /** Stops the call, and any wait to send it again (`aborted`, status 0). */
  signal?: AbortSignal | undefined;
};

/** The wait before retry `n` (0-based): 250 ms, then doubling. */
const retryDelayMs = (n: number) => 250 * 2 ** n;

/**
 * @example await createRunWithRetries(call, { plan }, { idempotencyKey: 'nightly-2026-11-29' })
 */
export async function createRunWithRetries(
  call: Call,
  body: CreateRunRequest,
  {
    idempotencyKey = newIdempotencyKey(),
    retries = 2,
    timeoutMs,
    attemptTimeoutMs,
    signal,
  }: CreateRunOptions = {},
): Promise<CreatedRun> {
  const headers = { 'idempotency-key': idempotencyKey };
  const deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    const left = deadline - Date.now();
    try {
      const bound = Number.isFinite(left) ? { timeoutMs: Math.max(1, left) } : {};
      // Idempotent: the key makes a repeat answer the first one's run (retry-policy.ts).
      const sent = { body, headers, idempotent: true, attemptTimeoutMs, signal, ...bound };
      return (await call<CreatedRun>('POST', '/v1/runs', sent)).body;
    } catch (err) {
      // Status 0: no answer (unreachable, or a timeout) — the run may or may not exist. Not the
      // caller's own stop (`aborted`).
      const unanswered = err instanceof EdgeplanApiError && err.status === 0 && err.code !== 'aborted';
      if (!unanswered) throw err;
      const wait = retryDelayMs(attempt);
      const outOfTime = Date.now() + wait >= deadline;
      if (outOfTime && timeoutMs !== undefined) throw gaveUp(err, timeoutMs, attempt + 1, idempotencyKey);
      if (attempt >= retries) throw withKey(err, attempt + 1, idempotencyKey);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** No answer within the call's `timeoutMs`: what happened, and how to get the run if it was created. */
function gaveUp(last: EdgeplanApiError, timeoutMs: number, attempts: number, key: string): EdgeplanApiError {
  return new EdgeplanApiError(
    0,
    'timeout',
    `No answer to creating the run within ${timeoutMs / 1000} s (${attempts} attempt${attempts === 1 ? '' : 's'}; last: ${last.message}). ` +
      `It may have been created: send the request again with Idempotency-Key ${key} to get that run, not a second one.`,
    { idempotency_key: key, attempts },
  );
}

/** The last no-answer error, with the key to send again in its details (as {@link gaveUp}'s). */
function withKey(last: EdgeplanApiError, attempts: number, key: string): EdgeplanApiError {
  return new EdgeplanApiError(last.status, last.code, last.message, { idempotency_key: key, attempts });
}

/**
 * A random key: a UUID v4 where `crypto.randomUUID` exists (it does not in a browser page served over
 * plain HTTP from another host than localhost), else 32 random hex digits.
 */
export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}
