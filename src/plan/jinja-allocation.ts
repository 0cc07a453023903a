/**
 * One operation of a template bounded before it allocates. The render budget (jinja-budget.ts) counts
 * a value once it exists, but some operations build one large string in a single JavaScript call:
 * `'a\nb' | indent(500000000)` makes a 500 MB line of spaces (`String.prototype.repeat`), a `join`
 * with a long separator or `tojson(indent=…)` over a large value one huge string
 * (`Array.prototype.join`), `s.replace('', long)` one replacement per character
 * (`String.prototype.replaceAll` with a function). Under workerd that took the isolate past its
 * 128 MB — every run in it with it — before the budget saw the value. While a render runs (it is
 * synchronous: nothing else runs meanwhile) these calls check the size of what they would make
 * against what the budget has left, and throw instead; they are put back when the render ends.
 * Pure (the engine's code), no I/O.
 */

/** Past this many characters a single operation is refused (`room` says what the budget has left). */
type Room = () => number;

type Replace = (this: string, pattern: unknown, replacement: unknown) => string;

// The runtime's own, put back after every render (kept unbound: each is called with its `this` below).
/* eslint-disable @typescript-eslint/unbound-method -- called with .call(this), never detached */
const { repeat, replace: replaceText, replaceAll: replaceAllText } = String.prototype;
const { join } = Array.prototype;
/* eslint-enable @typescript-eslint/unbound-method */
const replace = replaceText as Replace;
const replaceAll = replaceAllText as Replace;

let guarding = false;

/**
 * `f()` with `repeat`, `join`, `replace` and `replaceAll` refusing to make a string of more than
 * `room()` characters. Nested calls run under the outer guard.
 * @example withBoundedAllocations(() => 1000, () => 'ab'.repeat(600)) // throws
 */
export function withBoundedAllocations<T>(room: Room, f: () => T): T {
  if (guarding) return f();
  guarding = true;
  String.prototype.repeat = function (this: string, count: number): string {
    refuseOver(String(this).length * Math.max(0, Math.floor(Number(count)) || 0), room());
    return repeat.call(this, count);
  };
  Array.prototype.join = function (this: unknown[], separator?: string): string {
    const limit = room();
    refuseOver(joinedSize(this, separator === undefined ? 1 : String(separator).length, limit), limit);
    return join.call(this, separator);
  };
  String.prototype.replace = countingReplace(replace, room) as typeof String.prototype.replace;
  String.prototype.replaceAll = countingReplace(replaceAll, room) as typeof String.prototype.replaceAll;
  try {
    return f();
  } finally {
    String.prototype.repeat = repeat;
    Array.prototype.join = join;
    String.prototype.replace = replace as typeof String.prototype.replace;
    String.prototype.replaceAll = replaceAll as typeof String.prototype.replaceAll;
    guarding = false;
  }
}

function refuseOver(size: number, room: number): void {
  if (size > room) {
    throw new Error(
      `one operation of the template would make ${Math.round(size).toLocaleString('en-US')} characters, more than the ${Math.max(0, Math.floor(room)).toLocaleString('en-US')} its render has left; make the width, the separator or the text smaller`,
    );
  }
}

/**
 * `replace`/`replaceAll` whose function replacer adds up what it returns and refuses once the result
 * would be too large — before the result is built. A text replacer (no function) is left as it is:
 * the library replaces through functions.
 */
function countingReplace(original: Replace, room: Room): Replace {
  return function (this: string, pattern: unknown, replacement: unknown): string {
    if (typeof replacement !== 'function') return original.call(this, pattern, replacement);
    const limit = room();
    let size = String(this).length;
    const counted = (...args: unknown[]): string => {
      const out = String((replacement as (...a: unknown[]) => unknown)(...args));
      size += out.length;
      refuseOver(size, limit);
      return out;
    };
    return original.call(this, pattern, counted);
  };
}

/**
 * At least how many characters `join` makes of `items` (separators of `separatorLength` between),
 * counting nested arrays as their own `join(',')`; the count stops once past `limit`.
 */
function joinedSize(
  items: unknown[],
  separatorLength: number,
  limit: number,
  seen: Set<unknown[]> = new Set(),
): number {
  // An array inside itself joins as '' there (as `join` does).
  if (seen.has(items)) return 0;
  seen.add(items);
  let size = Math.max(0, items.length - 1) * separatorLength;
  for (const x of items) {
    if (size > limit) break;
    if (typeof x === 'string') size += x.length;
    else if (Array.isArray(x)) size += joinedSize(x, 1, limit - size, seen);
    else if (typeof x === 'number' || typeof x === 'bigint') size += 24;
    else if (x !== null && x !== undefined) size += 16;
  }
  seen.delete(items);
  return size;
}
