/**
 * Request objects that refuse keys they do not know. A misspelt key silently dropped is a setting the
 * caller believes is on — `require_plan_aproval: true` ran the plan with no approval — so the request
 * is refused naming the key, with the known key it most likely meant.
 */
import { z } from '@hono/zod-openapi';

/**
 * `z.strictObject(shape)` whose "unrecognized key" message suggests the nearest known key.
 * @example strictObject({ reason: z.string() }) // { reasn: 'x' } → `Unknown key "reasn" (did you mean "reason"?)`
 */
export function strictObject<T extends z.ZodRawShape>(shape: T) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? unknownKeysMessage(issue.keys, known) : undefined,
  });
}

/** `Unknown key "a" (did you mean "b"?)`; several keys are listed together. */
export function unknownKeysMessage(keys: readonly string[], known: readonly string[]): string {
  const parts = keys.map((k) => {
    const near = nearestKey(k, known);
    return near ? `"${k}" (did you mean "${near}"?)` : `"${k}"`;
  });
  return `Unknown key${keys.length === 1 ? '' : 's'} ${parts.join(', ')}`;
}

/** The known key within a third of `key`'s length in edits (at least 1, at most 3), if one is. */
export function nearestKey(key: string, known: readonly string[]): string | null {
  const budget = Math.min(3, Math.max(1, Math.floor(key.length / 3)));
  let best: string | null = null;
  let bestDistance = budget + 1;
  for (const k of known) {
    const d = editDistance(key.toLowerCase(), k.toLowerCase(), bestDistance);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance, giving up (returning `cap`) once every path costs at least `cap`. */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) >= cap) return cap;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const v = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      row.push(v);
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin >= cap) return cap;
    prev = row;
  }
  return prev[b.length]!;
}
