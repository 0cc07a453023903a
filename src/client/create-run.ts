/**
 * `createRun` made safe to retry: every attempt carries one `Idempotency-Key` (the caller's, or one
 * made for the call), so a request whose answer was lost — the connection dropped, or the client's
 * own timeout — is sent again and answered with the run the first attempt created, never a second
 * run. Only answers that never came are retried: an answer the API gave is the outcome.
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
};

/** The wait before retry `n` (0-based): 250 ms, then doubling. */
const retryDelayMs = (n: number) => 250 * 2 ** n;

/**
 * @example await createRunWithRetries(call, { plan }, { idempotencyKey: 'nightly-2026-11-29' })
 */
export async function createRunWithRetries(
  call: Call,
  body: CreateRunRequest,
  { idempotencyKey = newIdempotencyKey(), retries = 2 }: CreateRunOptions = {},
): Promise<CreatedRun> {
  const headers = { 'idempotency-key': idempotencyKey };
  for (let attempt = 0; ; attempt++) {
    try {
      return (await call<CreatedRun>('POST', '/v1/runs', { body, headers })).body;
    } catch (err) {
      // Status 0: no answer (unreachable, or the client's timeoutMs) — the run may or may not exist.
      const unanswered = err instanceof EdgeplanApiError && err.status === 0;
      if (!unanswered || attempt >= retries) throw err;
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs(attempt)));
    }
  }
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
