/**
 * `waitForRun`: the run once it gets where it is waited for, through `GET /v1/runs/:id/wait` — the
 * server follows the run's events, so nothing polls. One request waits at most {@link MAX_WAIT_S}
 * seconds (the API's limit); a longer wait is asked again, carrying the seq it counts new events from.
 */
import { EdgeplanApiError, type Call } from './http';
import type { RunWait, WaitUntil } from './types';

/** The longest wait one request may ask for (the API's `timeout_s` maximum). */
export const MAX_WAIT_S = 50;
/** What a request's own time limit leaves the server to wait, so its answer comes in time. */
const MARGIN_S = 5;

export type WaitOptions = {
  /** `terminal` (default): the run ended; `waiting`: it waits for a person, or ended; `any_change`: a new event. */
  until?: WaitUntil | undefined;
  /** Give up after this long, answering `timed_out: true` with the run as it is; default: no limit. */
  timeoutS?: number | undefined;
  /** `any_change`: count events after this seq (default: the run's last when the wait begins). */
  after?: number | undefined;
  /** Stops the wait (`aborted`, status 0), a wait to send a refused request again included. */
  signal?: AbortSignal | undefined;
};

/**
 * Waits for the run in requests of at most 50 s (less when the client's `timeoutMs` is shorter).
 * @example const { run, timed_out } = await waitRun(call, 'run_…', { until: 'waiting' }, undefined);
 */
export async function waitRun(
  call: Call,
  runId: string,
  { until = 'terminal', timeoutS, after, signal }: WaitOptions,
  clientTimeoutMs: number | undefined,
): Promise<RunWait> {
  // A NaN or a string went out as `timeout_s=NaN`, refused by the server under a name the caller never
  // wrote; a negative one waited a second.
  if (timeoutS !== undefined && !(typeof timeoutS === 'number' && timeoutS >= 0))
    throw new EdgeplanApiError(
      0,
      'invalid_request',
      `waitForRun: timeoutS must be a number of seconds, 0 or more (got ${String(timeoutS)}); ` +
        'leave it out to wait without a limit',
    );
  const end = timeoutS === undefined ? Infinity : Date.now() + timeoutS * 1000;
  const perRequest = clientTimeoutMs ? Math.floor(clientTimeoutMs / 1000) - MARGIN_S : MAX_WAIT_S;
  let since = after;
  for (;;) {
    const left = Math.ceil((end - Date.now()) / 1000);
    const timeout_s = Math.max(1, Math.min(MAX_WAIT_S, perRequest, left));
    const path = `/v1/runs/${encodeURIComponent(runId)}/wait`;
    // A refusal's wait to ask again (retrying-call.ts) ends with `timeoutS` too.
    const bound = Number.isFinite(end) ? { timeoutMs: end - Date.now() + MARGIN_S * 1000 } : {};
    const query = { until, timeout_s, after: since };
    const { body } = await call<RunWait>('GET', path, { query, signal, ...bound });
    if (!body.timed_out || Date.now() >= end) return body;
    // Nothing new up to the answer's last event: the next request counts from there, missing nothing.
    if (until === 'any_change') since ??= body.run.last_seq;
  }
}
