/**
 * A run a newer release wrote (storage-format.ts: a rollback) is refused by every RPC method of its
 * object as a value, not a throw. A throw crosses RPC as its message only, and workerd logs every
 * one in the object as an "uncaught exception" — for a refusal the Worker answers as documented
 * (`503 run_newer_format`), which buried real ones in the log. The Worker's side (run-object.ts)
 * throws the same error again where it called, so the API's error handler and the queue consumers
 * answer it as before.
 */
import { log } from '../log';
import { isNewerFormatRun, NEWER_FORMAT_RETRY_AFTER_S } from './storage-format';

/** What an RPC method of the run's object answers instead of its value: the refusal's message. */
export type NewerFormatRefusal = { run_newer_format: string };

/** A method's value, or the refusal of a run stored in a newer format. */
export type Refusable<T> = T | NewerFormatRefusal;

/**
 * `f()`, or the refusal when it throws {@link isNewerFormatRun}'s error; anything else is thrown on.
 * @example getRun() { return refusingNewer(() => this.#served()); }
 */
export function refusingNewer<T>(f: () => T): Refusable<T> {
  try {
    return f();
  } catch (err) {
    return refusal(err);
  }
}

/** {@link refusingNewer} for an async method. */
export async function refusingNewerAsync<T>(f: () => Promise<T>): Promise<Refusable<T>> {
  try {
    return await f();
  } catch (err) {
    return refusal(err);
  }
}

function refusal(err: unknown): NewerFormatRefusal {
  if (!isNewerFormatRun(err)) throw err;
  return { run_newer_format: (err as Error).message };
}

/** Whether an object's answer is such a refusal (a method's own values never have this key). */
export function isNewerFormatRefusal(v: unknown): v is NewerFormatRefusal {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as { run_newer_format?: unknown }).run_newer_format === 'string'
  );
}

/**
 * The value, or — for a refusal — its error thrown again here, in the caller, as `isNewerFormatRun`
 * knows it.
 */
export function unlessNewerFormat<T>(v: Refusable<T>): T {
  if (isNewerFormatRefusal(v)) throw new Error(v.run_newer_format);
  return v;
}

/**
 * The refusal as the object's `fetch` (the run's WebSocket) answers it: what the API's error handler
 * answers for the other routes — `503 run_newer_format` with `Retry-After` — logged here, where it is
 * known.
 */
export function newerFormatResponse(r: NewerFormatRefusal, runId: string | undefined): Response {
  log('run_newer_format', r.run_newer_format, { run_id: runId, code: 'run_newer_format' });
  return Response.json(
    { error: { code: 'run_newer_format', message: r.run_newer_format } },
    { status: 503, headers: { 'Retry-After': String(NEWER_FORMAT_RETRY_AFTER_S) } },
  );
}
