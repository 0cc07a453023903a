/**
 * Which refusals the client sends again by itself, and how long it waits first. A request is sent
 * again only where the server guarantees that the first one did nothing, or that doing it again
 * cannot act twice:
 *
 * - `429 rate_limited`: the rate limit refuses before any route runs (the `/v1/*` middleware, ahead of
 *   authentication and the body): nothing of the request happened, whatever its method.
 * - `503 run_newer_format`: the run's object refuses every method before it changes anything (a run a
 *   newer release wrote is left as it was), and each run route makes that one call of it.
 * - `503 deploy_in_progress`: only `POST /v1/runs` answers it, having removed the run before anything
 *   of it ran; `createRun` sends it again with the same `Idempotency-Key`, which then creates it once.
 * - `503 deletion_pending`: only `DELETE /v1/runs/:id` answers it; the run is hidden already, and a
 *   DELETE again only finishes what the first noted — deleting twice deletes once.
 * - Any `429`, `502`, `503` or `504` — a proxy's or the platform's "not now", without a code of ours —
 *   for a request that changes nothing (GET, `dryRun`, `validatePlan`) or whose repeat the server
 *   answers with the first one's outcome (`createRun`, always sent with an `Idempotency-Key`).
 *
 * Never sent again: `429 too_many_sockets` (watch.ts follows the run over HTTP instead); another POST answered 502/503/504 without one of those codes (a proxy may have
 * passed it on before failing, and `POST /input` without `step_id` is taken again as new information);
 * a 500 (a bug meets the same request again); `409 conflict` with `reason: "run_deleted"` (the key's
 * run was deleted: starting a new run under it is the caller's call). A request with no answer at all
 * (`unreachable`, `timeout`) is sent again by `createRun` only (create-run.ts).
 */
import type { EdgeplanApiError } from './http';

/** Codes the server sends only when the request did nothing, or when repeating it cannot act twice. */
export const SAFE_TO_RETRY_CODES: readonly string[] = [
  'rate_limited',
  'run_newer_format',
  'deploy_in_progress',
  'deletion_pending',
];

/** Statuses that mean "not now" from whoever answered (us, a proxy, the platform). */
const UNAVAILABLE = new Set([429, 502, 503, 504]);

/**
 * Whether `err` may be answered by sending the same request again. `idempotent`: the request changes
 * nothing, or the server answers its repeat with the first one's outcome.
 * @example retrySafe(new EdgeplanApiError(503, 'deploy_in_progress', '…'), false) // true
 */
export function retrySafe(err: EdgeplanApiError, idempotent: boolean): boolean {
  if (SAFE_TO_RETRY_CODES.includes(err.code)) return true;
  // The run serves all the sockets it takes: an answer for the watch to act on (it follows the run
  // over HTTP meanwhile), not a "not now" to wait 30 s out in silence.
  if (err.code === 'too_many_sockets') return false;
  return idempotent && UNAVAILABLE.has(err.status);
}

/** The longest wait between retries when the server did not say (`Retry-After`). */
const MAX_BACKOFF_MS = 30_000;

/**
 * How long to wait before retry `n` (0-based): what `Retry-After` asked, else 1 s doubling up to 30 s
 * — then up to a tenth more (at most 1 s), so clients one deploy refused come back spread out, never
 * sooner than asked.
 * @example retryWaitMs(new EdgeplanApiError(503, 'deploy_in_progress', '…', undefined, 60_000), 0) // 60000–61000
 */
export function retryWaitMs(err: EdgeplanApiError, n: number, random: () => number = Math.random): number {
  const base = err.retryAfterMs ?? Math.min(1000 * 2 ** n, MAX_BACKOFF_MS);
  return base + Math.floor(random() * Math.min(1000, base / 10));
}
