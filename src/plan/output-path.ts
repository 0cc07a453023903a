/**
 * Output paths (SPEC §2): where a step's result goes in state, `state.x`, or
 * `state.ok || state.err` to send the result to the first path on success and the error to the
 * second on failure.
 */
import { formatPath, isNameChar, isSpace, parsePathTail } from './reference-syntax';
import type { PathSegment } from './reference-syntax';

export type OutputPath =
  { ok: true; success: PathSegment[]; failure: PathSegment[] | null } | { ok: false; message: string };

/**
 * Parses an `output_path`: `state.x`, `state.a.b`, or `state.ok || state.err` (the result goes to the
 * first path on success, the error to the second on failure). Each side may also be written
 * `†state.x` or `{{ state.x }}`. Paths must be under `state.`.
 * @example parseOutputPath('state.receipt || state.error') // { ok: true, success: ['receipt'], failure: ['error'] }
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
  return { ok: true, success, failure };
}

/** One side of an output path, `s[a, b)`: the path under `state`, or why not. */
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
    return `Bad output_path "${s}": "${s.slice(from, to)}" is not a path under state.`;
  }
  if (path.length === 0) return `Bad output_path "${s}": name a path under state (state.<name>)`;
  return path;
}

/** The canonical text of an output path: `state.a || state.b`. */
export function formatOutputPath(
  success: readonly PathSegment[],
  failure: readonly PathSegment[] | null,
): string {
  const one = (p: readonly PathSegment[]): string => {
    const f = formatPath(p);
    return f.startsWith('[') ? `state${f}` : `state.${f}`;
  };
  return failure ? `${one(success)} || ${one(failure)}` : one(success);
}
