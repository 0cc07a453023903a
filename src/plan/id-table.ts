/**
 * Step id → position, for plans whose ids are looked up by the hundred thousand: an open-addressing
 * table in one typed array. A lookup reads one slot and the id it points at. The ids being looked
 * up come out of references, so each is a freshly sliced string, and a V8 `Map` lookup by such a
 * string measured several times slower than a `Map` lookup by the key it holds; the table leaves
 * the garbage collector nothing to trace either.
 */

/** FNV-1a over UTF-16 code units, as a non-negative 31-bit integer. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < s.length; k++) h = Math.imul(h ^ s.charCodeAt(k), 0x01000193);
  return h & 0x7fffffff;
}

/** The smallest power of two holding `count` keys at most half full. */
export function tableSize(count: number): number {
  return 1 << (32 - Math.clz32(Math.max(8, count * 2) - 1));
}

export class IdTable {
  readonly #ids: readonly string[];
  /** Pairs of (hash, position + 1); 0 marks an empty slot. */
  readonly #slots: Int32Array;
  readonly #mask: number;
  /** Positions whose id an earlier position already has, in order. */
  readonly duplicates: number[] = [];
  /** The last position found: generated plans look ids up in step order (see {@link get}). */
  #last = -1;
  /** `duplicates` as flags per position, when there are any. */
  #repeated: Uint8Array | null = null;

  /** Indexes `ids`; for a repeated id the first position is the one found. */
  constructor(ids: readonly string[]) {
    this.#ids = ids;
    const size = tableSize(ids.length);
    this.#mask = size - 1;
    this.#slots = new Int32Array(size * 2);
    for (let i = 0; i < ids.length; i++) this.#insert(ids[i]!, i);
    if (this.duplicates.length > 0) {
      this.#repeated = new Uint8Array(ids.length);
      for (const i of this.duplicates) this.#repeated[i] = 1;
    }
  }

  /**
   * The first position of `id`, or -1.
   * @example new IdTable(['a', 'b']).get('b') // 1
   */
  get(id: string): number {
    // Big plans are generated, and their steps read the step the previous step read, or the one
    // after it (a chain, a layer reading the layer before). Checking those two first skips the
    // probe — a cache miss into a table of megabytes — for nearly every lookup of such a plan.
    const last = this.#last;
    if (last >= 0) {
      if (this.#ids[last] === id) return last;
      if (this.#ids[last + 1] === id && this.#isFirst(last + 1)) return (this.#last = last + 1);
    }
    const slots = this.#slots;
    const h = hashString(id);
    for (let p = h & this.#mask; ; p = (p + 1) & this.#mask) {
      const at = slots[p * 2 + 1]!;
      if (at === 0) return -1;
      if (slots[p * 2] === h && this.#ids[at - 1] === id) return (this.#last = at - 1);
    }
  }

  /** Whether no earlier position has the id at `i` (the common case: no duplicates at all). */
  #isFirst(i: number): boolean {
    return this.#repeated === null || this.#repeated[i] === 0;
  }

  #insert(id: string, i: number): void {
    const slots = this.#slots;
    const h = hashString(id);
    for (let p = h & this.#mask; ; p = (p + 1) & this.#mask) {
      const at = slots[p * 2 + 1]!;
      if (at === 0) {
        slots[p * 2] = h;
        slots[p * 2 + 1] = i + 1;
        return;
      }
      if (slots[p * 2] === h && this.#ids[at - 1] === id) {
        this.duplicates.push(i);
        return;
      }
    }
  }
}
