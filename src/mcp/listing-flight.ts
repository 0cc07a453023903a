/**
 * One `tools/list` per server per isolate at a time. Steps, plan validations and run objects that start
 * together on a cold isolate each need a server's tools, and each found KV empty (the first answer is
 * not stored yet), so each asked the server: N at once, N listings. Now the first starts the listing
 * and the others wait for it.
 *
 * The wait is bounded twice: by the waiter's own signal (a listing started by a request that went away
 * — Workers cancel its I/O — cannot hold another request past its deadline), and by
 * {@link MAX_SHARED_LISTING_MS}: a listing started longer ago than that is not joined, a new one
 * starts. Nothing settled is kept here (KV and the isolate's loaded tools are the caches); an entry
 * goes when its listing settles. Awaiting a promise another request settles is allowed on the
 * compatibility date edgeplan sets (`handle_cross_request_promise_resolution`, since 2024-10-14).
 */

/** A listing in flight longer than this is not joined: a new one starts. */
export const MAX_SHARED_LISTING_MS = 30_000;

type Flight = { result: Promise<unknown>; started: number };

const inFlight = new Map<string, Flight>();

/**
 * `start()`'s result, or that of the call with the same `key` already in flight in this isolate;
 * rejects with `signal`'s reason if it aborts first.
 * @example const listing = await sharedListing(key, signal, () => listFromServer(server));
 */
export function sharedListing<T>(
  key: string,
  signal: AbortSignal | undefined,
  start: () => Promise<T>,
): Promise<T> {
  const now = Date.now();
  const current = inFlight.get(key);
  if (current && now - current.started < MAX_SHARED_LISTING_MS)
    return bounded(current.result as Promise<T>, signal);
  const flight: Flight = { result: start(), started: now };
  inFlight.set(key, flight);
  const done = () => {
    if (inFlight.get(key) === flight) inFlight.delete(key);
  };
  flight.result.then(done, done);
  return flight.result as Promise<T>;
}

function bounded<T>(result: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return result;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    result.finally(() => signal.removeEventListener('abort', onAbort)).then(resolve, reject);
  });
}
