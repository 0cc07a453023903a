/**
 * Bounding what one read of a run carries: a snapshot (`GET /v1/runs/:id`, `/state`) includes its
 * values — the final output, step results, state variables — while their total stays within a budget;
 * each value that does not fit is replaced by a marker saying how large it is and where to read it.
 * Sizes the store knows are used without reading the value, so a value left out is never loaded.
 */
import { utf8Bytes } from './value-limits';

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

  #elided(ref: string, bytes: number): ElidedValue {
    return { $elided: { bytes, ref, href: this.budget.href(ref) } };
  }
}
