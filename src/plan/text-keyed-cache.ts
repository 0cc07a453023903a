/**
 * A per-isolate cache of what was compiled from a text (a template, a condition), bounded by entry
 * count and by the total length of the texts it keeps, least recently used out first. The texts come
 * from plans — callers' input — and what is compiled from one is ~15–20 times its length in heap
 * (measured: a 340,000-character template's parse tree is 5 MiB), so a count alone does not bound it:
 * 500 entries of large templates are gigabytes in an isolate that has 128 MB. A text longer than
 * {@link TextKeyedCacheLimits.maxTextLength} is not kept at all (compiled again on each use: rare, and
 * its own request's cost).
 */

export type TextKeyedCacheLimits = {
  /** Entries kept at most. */
  maxEntries: number;
  /** Characters of key text kept at most, all entries together. */
  maxTotalLength: number;
  /** The longest text kept; a longer one is never stored. */
  maxTextLength: number;
};

/**
 * @example
 * const programs = new TextKeyedCache<Program>({ maxEntries: 500, maxTotalLength: 262_144, maxTextLength: 32_768 });
 * const p = programs.get(source) ?? programs.put(source, parse(source));
 */
export class TextKeyedCache<V> {
  readonly #entries = new Map<string, V>();
  #totalLength = 0;

  constructor(readonly limits: TextKeyedCacheLimits) {}

  /** The value kept for `text`, now the most recently used; undefined when none is. */
  get(text: string): V | undefined {
    const value = this.#entries.get(text);
    if (value === undefined) return undefined;
    this.#entries.delete(text);
    this.#entries.set(text, value);
    return value;
  }

  /** Keeps `value` for `text` (unless `text` is too long), the least recently used going to make room; returns `value`. */
  put(text: string, value: V): V {
    const { maxEntries, maxTotalLength, maxTextLength } = this.limits;
    if (text.length > maxTextLength) return value;
    if (this.#entries.delete(text)) this.#totalLength -= text.length;
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size < maxEntries && this.#totalLength + text.length <= maxTotalLength) break;
      this.#entries.delete(oldest);
      this.#totalLength -= oldest.length;
    }
    this.#entries.set(text, value);
    this.#totalLength += text.length;
    return value;
  }

  /** Entries kept now. */
  get size(): number {
    return this.#entries.size;
  }

  /** Characters of key text kept now. */
  get totalLength(): number {
    return this.#totalLength;
  }
}
