/**
 * A step's parameters as the step will run with them where the run's input decides them: each whole
 * `{{ input.… }}` the input has replaced by its value, so the tool's schema can judge that value
 * before the run starts — `parameters.team: must not be empty` said when the run is created, not
 * when the step runs. References to steps and state, and input inside text, are left as written
 * (their values are not known yet).
 */
import { getOwn, setOwn } from './own-keys';
import { isPrefix } from './parameter-problems';
import { getPath } from './references';
import type { PathSegment, Reference } from './reference-syntax';

export type WithInputValues = { params: unknown; replaced: Reference[] };

/**
 * `params` (found at `base` in the step) with `refs`' whole input references replaced from `input`.
 * @example
 * withInputValues({ team: '{{ input.team }}' }, ['parameters'], refs, { team: '' })
 * // { params: { team: '' }, replaced: [the reference] }
 */
export function withInputValues(
  params: unknown,
  base: readonly PathSegment[],
  refs: readonly Reference[],
  input: unknown,
): WithInputValues {
  const replaced: Reference[] = [];
  let out = params;
  for (const r of refs) {
    if (r.source !== 'input' || r.whole !== true || r.at === undefined) continue;
    if (!isPrefix(base, r.at)) continue;
    const read = getPath(input, r.path);
    if (!read.found) continue;
    if (replaced.length === 0) out = structuredClone(params);
    out = setAt(out, r.at.slice(base.length), read.value);
    replaced.push(r);
  }
  return { params: out, replaced };
}

/**
 * `root` with the value at `path` set to `value` (the value itself when the path is empty); keys as
 * data, `__proto__` included. The path is where a reference was found, so each step of it exists.
 */
function setAt(root: unknown, path: readonly PathSegment[], value: unknown): unknown {
  if (path.length === 0) return value;
  let cur = root as object;
  for (let k = 0; k < path.length - 1; k++) cur = getOwn(cur, path[k]!) as object;
  setOwn(cur, path.at(-1)!, value);
  return root;
}
