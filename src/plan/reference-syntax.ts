/**
 * The reference grammar (SPEC §2), shared by parameters, `when` conditions and output paths.
 * Written for speed as much as clarity: it runs for every reference of every step, so it scans
 * ranges of the source string instead of slicing it, and copies paths out of a scratch array.
 *
 * Grammar of the expression inside `{{ }}` (whitespace around it is optional):
 * - `steps.<id>.output` then a path; `steps['odd.id'].output` for ids containing `.output`.
 *   `steps.<id>` alone is read leniently as `steps.<id>.output` (LLMs write it; LLMCompiler's `$1`
 *   means exactly that). Anything else after the id (`steps.a.items`) parses as the id `a.items`,
 *   which validation then reports with a hint.
 * - `state` / `input`, then a path (`state` alone is the whole state).
 * - A path is `.name`, `[0]`, `['any key']` or `["any key"]`; `.0` is the same as `[0]`.
 *   Names are letters, digits, `_`, `$`, `-` and non-ASCII characters.
 */
import { STEP_ID_PATTERN } from './model';

export type RefSource = 'steps' | 'state' | 'input';
export type PathSegment = string | number;

/**
 * One parsed reference. For `steps`, `stepId` names the step and `path` is what follows `.output`
 * (`{{ steps.search.output.items[0].url }}` → stepId "search", path ["items", 0, "url"]).
 * For `state`/`input`, `path` is everything after the root (`{{ state.a.b }}` → ["a", "b"]).
 */
export type Reference = {
  source: RefSource;
  stepId?: string;
  path: PathSegment[];
  /** The reference as written, braces included when it had them. */
  text: string;
  /** Where it sits inside the value given to {@link collectReferences} (after its `base`). */
  at?: PathSegment[];
  /** True when the string holding it is exactly this reference, so it keeps the value's type. */
  whole?: boolean;
};

export type ParsedPath = { ok: true; ref: Reference } | { ok: false; message: string };

/**
 * Parses a bare reference expression (`steps.a.output.x`, `state.a[0]`, `input`), without braces.
 * @example parseReferenceExpression('state.user.name') // { ok: true, ref: { source: 'state', path: ['user', 'name'], … } }
 */
export function parseReferenceExpression(expr: string, text: string = expr): ParsedPath {
  const parsed = parseReferenceRange(expr, 0, expr.length);
  if (typeof parsed === 'string') return { ok: false, message: `Bad reference ${text}: ${parsed}` };
  parsed.text = text;
  return { ok: true, ref: parsed };
}

/**
 * Parses the expression in `s` between `start` and `end` (no slicing of the whole: this runs for
 * every reference of every step). Returns the reference, with `text` still to fill in, or why not.
 */
export function parseReferenceRange(s: string, start: number, end: number): Reference | string {
  let root = start;
  while (root < end && isNameChar(s.charCodeAt(root))) root++;
  const source: RefSource | null =
    root - start !== 5
      ? null
      : s.startsWith('steps', start)
        ? 'steps'
        : s.startsWith('state', start)
          ? 'state'
          : s.startsWith('input', start)
            ? 'input'
            : null;
  if (source === null) {
    if (start === end) return 'it is empty';
    return `unknown root "${s.slice(start, root) || s[start]}" (expected steps., state. or input.)`;
  }
  if (source !== 'steps') {
    const tail = parsePathTail(s, root, end, start);
    return typeof tail === 'string' ? tail : newReference(source, undefined, tail);
  }

  let stepId: string;
  let rest: number;
  const c = s.charCodeAt(root);
  if (c === 91 && (s[root + 1] === "'" || s[root + 1] === '"')) {
    const close = s.indexOf(s[root + 1]! + ']', root + 2);
    if (close < 0 || close + 2 > end) return 'unclosed step id bracket';
    stepId = s.slice(root + 2, close);
    rest = close + 2;
    if (rest < end) {
      if (!s.startsWith('.output', rest) || (rest + 7 < end && !isPathStart(s.charCodeAt(rest + 7)))) {
        return 'expected .output after the step id';
      }
      rest += 7;
    }
    if (!STEP_ID_PATTERN.test(stepId)) return `"${stepId}" is not a step id`;
  } else if (c === 46) {
    let idEnd = root + 1;
    while (idEnd < end && isStepIdChar(s.charCodeAt(idEnd))) idEnd++;
    const marker = findOutputMarker(s, root + 1, idEnd);
    if (marker >= 0) {
      stepId = s.slice(root + 1, marker);
      rest = marker + 7;
    } else if (idEnd === end) {
      stepId = s.slice(root + 1, idEnd); // lenient: `steps.x` means `steps.x.output`
      rest = idEnd;
    } else {
      return 'expected .output after the step id';
    }
    if (stepId.length === 0 || stepId.length > 64) return `"${stepId}" is not a step id`;
  } else {
    return 'expected a step id after "steps." (steps.<id>.output)';
  }
  const tail = parsePathTail(s, rest, end, start);
  return typeof tail === 'string' ? tail : newReference('steps', stepId, tail);
}

/** Every field present from the start: one object shape, no property store added later. */
function newReference(source: RefSource, stepId: string | undefined, path: PathSegment[]): Reference {
  return { source, stepId, path, text: '', at: undefined, whole: false };
}

function isPathStart(c: number): boolean {
  return c === 46 || c === 91;
}

/** Index in `s` of the `.output` ending a step id in [from, end) — followed by `end` or a `.` — or -1. */
function findOutputMarker(s: string, from: number, end: number): number {
  let k = s.indexOf('.output', from + 1);
  while (k >= 0 && k + 7 <= end) {
    if (k + 7 === end || s.charCodeAt(k + 7) === 46) return k;
    k = s.indexOf('.output', k + 1);
  }
  return -1;
}

/**
 * Parses `.a[0]['b c'].d` in `s` from `i` to `end`; a string is the reason it does not parse
 * (positions counted from `origin`).
 */
export function parsePathTail(s: string, i: number, end: number, origin: number): PathSegment[] | string {
  // Segments go to a scratch array and are copied out at their exact size: an array grown by
  // push reserves 16 slots, which over 100k steps is most of validation's memory.
  const path = pathScratch;
  clearArray(path);
  while (i < end) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      let j = i + 1;
      let digits = true;
      while (j < end) {
        const d = s.charCodeAt(j);
        if (!isNameChar(d)) break;
        if (d < 48 || d > 57) digits = false;
        j++;
      }
      if (j === i + 1) return `expected a name after "." at position ${i - origin}`;
      path.push(digits && j - i < 16 ? Number(s.slice(i + 1, j)) : s.slice(i + 1, j));
      i = j;
    } else if (c === 91) {
      const q = s[i + 1];
      if (q === "'" || q === '"') {
        const close = s.indexOf(q + ']', i + 2);
        if (close < 0 || close + 2 > end) return `unclosed [${q} at position ${i - origin}`;
        path.push(s.slice(i + 2, close));
        i = close + 2;
      } else {
        let j = i + 1;
        while (j < end && s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57) j++;
        if (j === i + 1 || j - i > 16 || s.charCodeAt(j) !== 93 || j >= end) {
          return `expected [<index>] or ['<key>'] at position ${i - origin}`;
        }
        let index = 0;
        for (let k = i + 1; k < j; k++) index = index * 10 + s.charCodeAt(k) - 48;
        path.push(index);
        i = j + 1;
      }
    } else {
      return `unexpected "${s[i]}" at position ${i - origin}`;
    }
  }
  return path.length === 0 ? [] : path.slice();
}

const pathScratch: PathSegment[] = [];

/**
 * Empties a scratch array but keeps its capacity (`length = 0` drops the backing store, and the
 * next push allocates a fresh 17-slot one: ~150 bytes per reference on big plans).
 */
export function clearArray(a: unknown[]): void {
  while (a.length > 0) a.pop();
}

export function isDigits(s: string): boolean {
  if (s.length === 0 || s.length > 15) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Letters, digits, `_`, `$`, `-`, and anything non-ASCII. */
export function isNameChar(c: number): boolean {
  return (
    (c >= 97 && c <= 122) ||
    (c >= 65 && c <= 90) ||
    (c >= 48 && c <= 57) ||
    c === 95 ||
    c === 36 ||
    c === 45 ||
    c >= 128
  );
}

function isStepIdChar(c: number): boolean {
  return (
    (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45 || c === 46
  );
}

/** Formats a path for messages: `items[0].url`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** Parses the expression between `{{` at `open` and `}}` at `close`, spaces around it ignored. */
export function parseBraced(s: string, open: number, close: number): Reference | string {
  let a = open + 2;
  let b = close;
  while (a < b && isSpace(s.charCodeAt(a))) a++;
  while (b > a && isSpace(s.charCodeAt(b - 1))) b--;
  return parseReferenceRange(s, a, b);
}

/** True when `s` (ignoring surrounding whitespace) is exactly the span [start, end). */
export function spansWhole(s: string, start: number, end: number): boolean {
  for (let i = 0; i < start; i++) if (!isSpace(s.charCodeAt(i))) return false;
  for (let i = end; i < s.length; i++) if (!isSpace(s.charCodeAt(i))) return false;
  return true;
}

export function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}
