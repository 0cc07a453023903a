/**
 * Output paths (SPEC §2): where a step's result goes in state, `state.x`, or
 * `state.ok || state.err` to send the result to the first path on success and the error to the
 * second on failure.
 *
 * The bare root `state` (also `†state`, `{{ state }}`) merges: each own key k of the result object
 * is written to `state.k`, replacing that key's value — what a TEA action's returned dict does to
 * the state (seed 001). A result that is not a plain object fails the step. Only the success side
 * may be the root: an error is one value (`{code, message, retryable}`) and goes to a named path,
 * since merging it would overwrite whatever `state.code` / `state.message` held.
 */
import { formatPath, isNameChar, isSpace, parsePathTail } from './reference-syntax';
import type { PathSegment } from './reference-syntax';

export type OutputPath =
  { ok: true; success: PathSegment[]; failure: PathSegment[] | null } | { ok: false; message: string };

/**
 * Parses an `output_path`: `state.x`, `state.a.b`, or `state.ok || state.err` (the result goes to the
 * first path on success, the error to the second on failure). Each side may also be written
 * `†state.x` or `{{ state.x }}`. Paths must be under `state`; the success side may be `state`
 * itself (an empty path: merge the result's keys into state), the failure side may not.
 * @example parseOutputPath('state.receipt || state.error') // { ok: true, success: ['receipt'], failure: ['error'] }
 * @example parseOutputPath('state') // { ok: true, success: [], failure: null }
 */
export function parseOutputPath(s: string): OutputPath {
  const bar = s.indexOf('||');
  if (bar >= 0 && s.indexOf('||', bar + 2) >= 0) {
    return { ok: false, message: `Bad output_path "${s}": at most two paths, "state.<ok> || state.<error>"` };
  }
  const success = parseOutputSide(s, 0, bar < 0 ? s.length : bar);
  if (typeof success === 'string') return { ok: false, message: success };
  if (bar < 0) return { ok: true, success, failure: null };
  const failure = parseOutputSide(s, bar + 2, s.length);
  if (typeof failure === 'string') return { ok: false, message: failure };
  if (failure.length === 0) {
    return {
      ok: false,
      message: `Bad output_path "${s}": the error goes to a named path ("state.<ok> || state.<error>"); only the success side may be the whole state`,
    };
  }
  return { ok: true, success, failure };
}

/** One side of an output path, `s[a, b)`: the path under `state` (empty for `state` itself), or why not. */
function parseOutputSide(s: string, a: number, b: number): PathSegment[] | string {
  while (a < b && isSpace(s.charCodeAt(a))) a++;
  while (b > a && isSpace(s.charCodeAt(b - 1))) b--;
  const from = a;
  const to = b;
  if (s.startsWith('†', a)) a++;
  else if (s.startsWith('{{', a) && b - a >= 4 && s.startsWith('}}', b - 2)) {
    a += 2;
    b -= 2;
    while (a < b && isSpace(s.charCodeAt(a))) a++;
    while (b > a && isSpace(s.charCodeAt(b - 1))) b--;
  }
  // `state` then a path; parsed directly (no Reference object: this runs once per step).
  const path =
    s.startsWith('state', a) && (a + 5 === b || !isNameChar(s.charCodeAt(a + 5)))
      ? parsePathTail(s, a + 5, b, a)
      : null;
  if (path === null || typeof path === 'string') {
    const what = from === to ? 'an empty path' : `"${s.slice(from, to)}"`;
    return `Bad output_path "${s}": ${what} is not a path under state.`;
  }
  return path;
}

/** The canonical text of an output path: `state.a || state.b`, or `state` for the root. */
export function formatOutputPath(
  success: readonly PathSegment[],
  failure: readonly PathSegment[] | null,
): string {
  const one = (p: readonly PathSegment[]): string => {
    const f = formatPath(p);
    return f === '' || f.startsWith('[') ? `state${f}` : `state.${f}`;
  };
  return failure ? `${one(success)} || ${one(failure)}` : one(success);
}
