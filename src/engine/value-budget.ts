/**
 * Bounding what one read of a run carries: a snapshot (`GET /v1/runs/:id`, `/state`) includes its
 * values — the final output, step results, state variables — while their total stays within a budget;
 * each value that does not fit is replaced by a marker saying how large it is and where to read it.
 * Sizes the store knows are used without reading the value, so a value left out is never loaded.
 *
 * Step errors are bounded too, apart from the values: a tool's error may carry 16 KiB of message (a
 * response body), and two thousand steps failing so made a snapshot too large for the one call that
 * carries it from the run's object (32 MiB) — `GET /v1/runs/:id` answered 500. Messages are included
 * whole while they fit {@link SNAPSHOT_ERROR_CHARS}; past that each is cut short, its code kept.
 */
import type { ErrorInfo } from '../errors';
import { utf8Bytes } from './value-limits';

/** Most characters of step error messages one snapshot carries whole (at most 6 MiB of UTF-8). */
export const SNAPSHOT_ERROR_CHARS = 2 * 1024 * 1024;
/** What is left of a message once the snapshot's errors are over {@link SNAPSHOT_ERROR_CHARS}. */
export const CUT_ERROR_CHARS = 200;

/** Where the API serves one value of a run (`GET /v1/runs/:id/values`). */
export const valueHref = (runId: string, ref: string): string =>
  `/v1/runs/${runId}/values?ref=${encodeURIComponent(ref)}`;

/** What stands in for a value left out of a snapshot. */
export type ElidedValue = { $elided: { bytes: number; ref: string; href: string } };

export type SnapshotBudget = {
  /** Most bytes of JSON a snapshot's values may take together. */
  maxBytes: number;
  /** A value's size when known without reading it (`steps.<id>.output`, `state.<key>`, `final_output`). */
  sizeOf?: (ref: string) => number | undefined;
  /** Where the whole value is served. */
  href: (ref: string) => string;
};

export class ValueBudget {
  #left: number;
  #errorChars = SNAPSHOT_ERROR_CHARS;

  constructor(private readonly budget: SnapshotBudget) {
    this.#left = budget.maxBytes;
  }

  /** The value `read` returns, or a marker when it does not fit in what is left of the budget. */
  take(ref: string, read: () => unknown): unknown {
    const known = this.budget.sizeOf?.(ref);
    if (known !== undefined && known > this.#left) return this.#elided(ref, known);
    const value = read();
    const bytes = known ?? utf8Bytes(JSON.stringify(value ?? null));
    if (bytes > this.#left) return this.#elided(ref, bytes);
    this.#left -= bytes;
    return value;
  }

  /**
   * The error as it is while the snapshot's messages fit; past that, with its message cut to
   * {@link CUT_ERROR_CHARS} characters and a note of its length and where it is whole (the step's
   * `StepFailed` event). The code and `retryable` are kept: they are what a caller acts on.
   */
  error(error: ErrorInfo): ErrorInfo {
    const m = error.message;
    if (m.length <= CUT_ERROR_CHARS) return error;
    if (m.length <= this.#errorChars) {
      this.#errorChars -= m.length;
      return error;
    }
    // Not between the two halves of a surrogate pair.
    const end = /[\uD800-\uDBFF]/.test(m.charAt(CUT_ERROR_CHARS - 1)) ? CUT_ERROR_CHARS - 1 : CUT_ERROR_CHARS;
    const message =
      `${m.slice(0, end)}… (${m.length} characters; the whole message is in the step's StepFailed ` +
      `event, GET /v1/runs/:id/events)`;
    return { ...error, message };
  }

  #elided(ref: string, bytes: number): ElidedValue {
    return { $elided: { bytes, ref, href: this.budget.href(ref) } };
  }
}
