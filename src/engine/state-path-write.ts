/** How a step's output (or handled failure) is written into the run's state variables. */
import { isRecord } from '../plan/model';
import { getOwn, setOwn } from '../plan/own-keys';
import type { PathSegment } from '../plan/references';
import type { ResultStore } from './state';

/**
 * Writes `value` at a state path: the first segment is one variable, deeper segments are set inside
 * it. The empty path (`output_path: "state"`) merges: each own key of `value` becomes a variable,
 * replacing its value. The machine fails a step whose output cannot be merged before it is
 * recorded (see `mergeError`), so a non-object here changes nothing.
 */
export function writeStatePath(results: ResultStore, path: readonly PathSegment[], value: unknown): void {
  const [root, ...rest] = path;
  if (root === undefined) {
    if (isRecord(value)) for (const key of Object.keys(value)) results.setVar(key, value[key]);
    return;
  }
  const key = String(root);
  if (rest.length === 0) {
    results.setVar(key, value);
    return;
  }
  const current = results.getVar(key);
  const top: unknown =
    current.found && typeof current.value === 'object' && current.value !== null
      ? structuredClone(current.value)
      : {};
  // Own keys only, set as data: a path through `__proto__` (or `constructor.prototype`) names keys
  // of the variable, never the prototype every object of the isolate shares.
  let node = top as object;
  for (let i = 0; i < rest.length - 1; i++) {
    const seg = rest[i]!;
    const next = getOwn(node, seg);
    if (typeof next === 'object' && next !== null) node = next;
    else {
      const created = {};
      setOwn(node, seg, created);
      node = created;
    }
  }
  setOwn(node, rest[rest.length - 1]!, value);
  results.setVar(key, top);
}
