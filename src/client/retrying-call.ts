/**
 * A {@link Call} that sends a request again when the server refused it for now and sending it again
 * is safe (retry-policy.ts says which), after the wait the server asked for (`Retry-After`) — within
 * bounds: at most `maxRetries` times, waiting at most `maxRetryWaitMs` in all, never past the call's
 * own `timeoutMs`, and not once a signal stops it. A wait that does not fit is not begun: the
 * server's error is thrown at once, its code unchanged, its message saying why it was not waited out.
 */
import { aborted, EdgeplanApiError, type Call, type CallOptions, type ClientOptions } from './http';
import { retrySafe, retryWaitMs } from './retry-policy';

/** How many times one request is sent again, by default. */
export const DEFAULT_MAX_RETRIES = 5;
/** How long one request waits to be sent again, in all, by default: 2 minutes. */
export const DEFAULT_MAX_RETRY_WAIT_MS = 120_000;

/**
 * @example const call = withRetries(makeCall(options), options);
 */
export function withRetries(call: Call, options: ClientOptions): Call {
  const maxRetries = options.retry === false ? 0 : (options.maxRetries ?? DEFAULT_MAX_RETRIES);
  const budgetMs = options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
  return async function retryingCall<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    callOptions: CallOptions = {},
  ): Promise<{ status: number; body: T }> {
    const idempotent = method === 'GET' || callOptions.idempotent === true;
    const deadline = callOptions.timeoutMs ? Date.now() + callOptions.timeoutMs : Infinity;
    const signals = [options.signal, callOptions.signal];
    let waited = 0;
    let refused: EdgeplanApiError | undefined;
    for (let retry = 0; ; retry++) {
      const left = Math.min(deadline - Date.now(), callOptions.attemptTimeoutMs ?? Infinity);
      try {
        const bound = Number.isFinite(left) ? { timeoutMs: Math.max(1, left) } : {};
        return await call<T>(method, path, { ...callOptions, ...bound });
      } catch (err) {
        if (!(err instanceof EdgeplanApiError)) throw err;
        if (refused) err.retriedAfter = refused;
        if (retry >= maxRetries || !retrySafe(err, idempotent)) throw err;
        const asked = retryWaitMs(err, retry, () => 0);
        const room = Math.min(budgetMs - waited, deadline - Date.now());
        if (asked > room) throw notWaited(err, asked, budgetMs - waited, deadline - Date.now());
        const waitMs = Math.min(retryWaitMs(err, retry), room);
        options.onRetry?.({ method, path, error: err, retry: retry + 1, waitMs });
        await pause(waitMs, signals, () => {
          const stop = aborted(method, path, ` while waiting to send it again (${err.status} ${err.code})`);
          stop.retriedAfter = err;
          return stop;
        });
        waited += waitMs;
        refused = err;
      }
    }
  };
}

/** The server's error, its code kept, saying why its wait was not begun. */
function notWaited(err: EdgeplanApiError, askedMs: number, budgetLeftMs: number, timeLeftMs: number) {
  const s = (ms: number) => `${Math.max(0, Math.ceil(ms / 1000))} s`;
  const limit =
    timeLeftMs < budgetLeftMs
      ? `the ${s(timeLeftMs)} left of the call's own timeout`
      : `the ${s(budgetLeftMs)} the client still waits for one request (maxRetryWaitMs)`;
  const asked =
    err.retryAfterMs !== undefined ? `asked to wait ${s(askedMs)} (Retry-After)` : `would wait ${s(askedMs)}`;
  const out = new EdgeplanApiError(
    err.status,
    err.code,
    `${err.message} (not sent again: the answer ${asked}, longer than ${limit})`,
    err.details,
    err.retryAfterMs,
  );
  if (err.retriedAfter) out.retriedAfter = err.retriedAfter;
  return out;
}

/** Waits `ms`; rejects with `stopped()` as soon as one of the signals aborts (or has). */
function pause(ms: number, signals: (AbortSignal | undefined)[], stopped: () => Error): Promise<void> {
  const live = signals.filter((s): s is AbortSignal => s !== undefined);
  return new Promise((resolve, reject) => {
    if (live.some((s) => s.aborted)) return reject(stopped());
    const off = () => live.forEach((s) => s.removeEventListener('abort', stop));
    const timer = setTimeout(() => (off(), resolve()), ms);
    function stop() {
      clearTimeout(timer);
      off();
      reject(stopped());
    }
    live.forEach((s) => s.addEventListener('abort', stop, { once: true }));
  });
}
