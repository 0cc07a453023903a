/**
 * "Did you mean" for misspelt keys. A key silently dropped is a setting the caller believes is on, so
 * request bodies and submitted plans refuse unknown keys, naming the known key each most likely meant.
 */

/**
 * zod's `error` option for a strict object: its unknown keys named with their likely meaning, every
 * other issue left to zod. @example z.strictObject(shape, { error: unknownKeysError(Object.keys(shape)) })
 */
export function unknownKeysError(known: readonly string[]) {
  return (issue: { code?: string; keys?: readonly string[] }): string | undefined =>
    issue.code === 'unrecognized_keys' && issue.keys ? unknownKeysMessage(issue.keys, known) : undefined;
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

/**
 * Edit distance counting a swap of two neighbouring letters as one edit (optimal string alignment:
 * `vlaue` is one from `value`), giving up (returning `cap`) once every path costs at least `cap`.
 */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) >= cap) return cap;
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, before[j - 2]! + 1);
      row.push(v);
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin >= cap) return cap;
    before = prev;
    prev = row;
  }
  return prev[b.length]!;
}
