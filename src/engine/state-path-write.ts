/** How a step's output (or handled failure) is written into the run's state variables. */
import { isRecord } from '../plan/model';
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
  let node = top as Record<string | number, unknown>;
  for (let i = 0; i < rest.length - 1; i++) {
    const seg = rest[i]!;
    const next = node[seg];
    if (typeof next !== 'object' || next === null) node[seg] = {};
    node = node[seg] as Record<string | number, unknown>;
  }
  node[rest[rest.length - 1]!] = value;
  results.setVar(key, top);
}
