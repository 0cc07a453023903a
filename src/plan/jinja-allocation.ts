/**
 * One operation of a template bounded before it allocates. The render budget (jinja-budget.ts) counts
 * a value once it exists, but some operations build one large string in a single JavaScript call:
 * `'a\nb' | indent(500000000)` makes a 500 MB line of spaces (`String.prototype.repeat`), a `join`
 * with a long separator or `tojson(indent=…)` over a large value one huge string
 * (`Array.prototype.join`), `s.replace('', long)` one replacement per character
 * (`String.prototype.replaceAll` with a function). Under workerd that took the isolate past its
 * 128 MB — every run in it with it — before the budget saw the value. Others make one value per
 * piece of a text: `.split(' ')` of 20 million spaces made 20 million values (2 GB in Node, for 20
 * Mi of the budget), as do a `join` or a slice of a string (`Array.from` of its characters) and
 * `.split()` (its `matchAll`). While a render runs (it is synchronous: nothing else runs meanwhile)
 * these calls check the size of what they would make against what the budget has left, a piece
 * counted as {@link PIECE_UNITS} characters (a character spread into an array as 8), and throw instead; they are put back when the render ends.
 * Pure (the engine's code), no I/O.
 */

/** Past this many characters a single operation is refused (`room` says what the budget has left). */
type Room = () => number;

type Replace = (this: string, pattern: unknown, replacement: unknown) => string;

// The runtime's own, put back after every render (kept unbound: each is called with its `this` below).
/* eslint-disable @typescript-eslint/unbound-method -- called with .call(this), never detached */
const { repeat, replace: replaceText, replaceAll: replaceAllText } = String.prototype;
const { join } = Array.prototype;
const { split, matchAll } = String.prototype;
/* eslint-enable @typescript-eslint/unbound-method */
const arrayFrom = Array.from;

/**
 * What one piece a text is cut into costs against the budget, in characters: each is a value of its
 * own (the library wraps it, ~100 bytes in Node) where a character is a byte or two.
 */
export const PIECE_UNITS = 64;
/** What one character of a text spread into an array costs (`Array.from`, no map): a pointer, 8 bytes. */
const SLOT_UNITS = 8;
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
  String.prototype.split = function (this: string, separator: unknown, limit?: number): string[] {
    if (typeof separator === 'string') {
      const most = room();
      refusePiecesOver(
        piecesOf(String(this), separator, Math.floor(most / PIECE_UNITS) + 1),
        PIECE_UNITS,
        most,
      );
    }
    return (split as (this: string, s: unknown, l?: number) => string[]).call(this, separator, limit);
  };
  String.prototype.matchAll = function (
    this: string,
    pattern: RegExp,
  ): RegExpStringIterator<RegExpExecArray> {
    return countedMatches(matchAll.call(this, pattern), room());
  };
  Array.from = function (this: unknown, items: unknown, ...rest: unknown[]): unknown[] {
    // Each character a slot of the array; mapped, each a value of its own too.
    if (typeof items === 'string') refusePiecesOver(items.length, rest[0] ? PIECE_UNITS : SLOT_UNITS, room());
    return (arrayFrom as (...a: unknown[]) => unknown[]).call(this, items, ...rest);
  } as typeof Array.from;
  try {
    return f();
  } finally {
    String.prototype.repeat = repeat;
    Array.prototype.join = join;
    String.prototype.replace = replace as typeof String.prototype.replace;
    String.prototype.replaceAll = replaceAll as typeof String.prototype.replaceAll;
    String.prototype.split = split;
    String.prototype.matchAll = matchAll;
    Array.from = arrayFrom;
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

/** Refused when `pieces` of `units` each pass `room`; the pieces are said as counted (at most room's + 1). */
function refusePiecesOver(pieces: number, units: number, room: number): void {
  const most = Math.max(0, Math.floor(room / units));
  if (pieces > most) {
    throw new Error(
      `one operation of the template would cut a text into more than ${most.toLocaleString('en-US')} pieces, the most its render has left room for; cut a shorter text, or by a longer separator`,
    );
  }
}

/** How many pieces `text.split(separator)` makes, counted without making them; stops at `most`. */
function piecesOf(text: string, separator: string, most: number): number {
  if (separator === '') return text.length;
  let pieces = 1;
  for (
    let at = text.indexOf(separator);
    at >= 0 && pieces < most;
    at = text.indexOf(separator, at + separator.length)
  ) {
    pieces++;
  }
  return pieces;
}

/**
 * How many times global `pattern` matches in `text`, counted without keeping the matches (a replace
 * collects every match before it replaces one); stops at `most`. An empty match counts once a place.
 */
function matchesOf(pattern: RegExp, text: string, most: number): number {
  const re = new RegExp(pattern.source, pattern.flags);
  let n = 0;
  for (let at = 0; n < most && re.test(text); at = re.lastIndex) {
    n++;
    if (re.lastIndex === at) re.lastIndex++;
  }
  return n;
}

/** `matches`, refused at the match that would pass `room` (each is a piece the caller keeps). */
function countedMatches(
  matches: RegExpStringIterator<RegExpExecArray>,
  room: number,
): RegExpStringIterator<RegExpExecArray> {
  let pieces = 0;
  const next = matches.next.bind(matches);
  return Object.assign(matches, {
    next(): IteratorResult<RegExpExecArray, undefined> {
      const r = next();
      if (!r.done) refusePiecesOver(++pieces, PIECE_UNITS, room);
      return r;
    },
  });
}

/**
 * `replace`/`replaceAll` whose function replacer adds up what it returns and refuses once the result
 * would be too large — before the result is built; with a global pattern, refused first when it
 * matches more often than the room left for a piece each (the runtime keeps every match first). A text replacer (no function) is left as it is:
 * the library replaces through functions.
 */
function countingReplace(original: Replace, room: Room): Replace {
  return function (this: string, pattern: unknown, replacement: unknown): string {
    if (typeof replacement !== 'function') return original.call(this, pattern, replacement);
    const limit = room();
    if (pattern instanceof RegExp && pattern.global) {
      refusePiecesOver(
        matchesOf(pattern, String(this), Math.floor(limit / PIECE_UNITS) + 1),
        PIECE_UNITS,
        limit,
      );
    }
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
