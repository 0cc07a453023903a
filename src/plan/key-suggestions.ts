/**
 * "Did you mean" for misspelt keys. A key silently dropped is a setting the caller believes is on, so
 * request bodies and submitted plans refuse unknown keys, naming the known key each most likely meant.
 */
import { clipText } from '../text-cut';

/**
 * zod's `error` option for a strict object: its unknown keys named with their likely meaning, every
 * other issue left to zod. @example z.strictObject(shape, { error: unknownKeysError(Object.keys(shape)) })
 */
export function unknownKeysError(known: readonly string[]) {
  return (issue: { code?: string; keys?: readonly string[] }): string | undefined =>
    issue.code === 'unrecognized_keys' && issue.keys ? unknownKeysMessage(issue.keys, known) : undefined;
}

/** The most unknown keys a message names, and the longest part of one it repeats. */
const LISTED_KEYS = 10;
const KEY_CHARS = 80;

/**
 * `Unknown key "a" (did you mean "b"?)`; several keys are listed together — the first
 * {@link LISTED_KEYS}, then how many more, each cut to {@link KEY_CHARS} characters: a body of 200,000
 * unknown keys was answered with all of them, 5 MB. When a key resembles no known one, the known keys
 * follow (`; known keys: …`) unless `listKnown` is false (a caller that lists them its own way).
 */
export function unknownKeysMessage(
  keys: readonly string[],
  known: readonly string[],
  { listKnown = true }: { listKnown?: boolean } = {},
): string {
  let unmatched = false;
  const parts = keys.slice(0, LISTED_KEYS).map((k) => {
    const near = nearestKey(k, known) ?? knownSynonym(k, known) ?? keyWithTheseWords(k, known);
    const shown = clipText(k, KEY_CHARS);
    if (!near) unmatched = true;
    return near ? `"${shown}" (did you mean "${near}"?)` : `"${shown}"`;
  });
  const more = keys.length - parts.length;
  if (more > 0) parts.push(`and ${more} more`);
  const message = `Unknown key${keys.length === 1 ? '' : 's'} ${parts.join(', ')}`;
  // A key nothing resembles leaves the caller guessing: say what the object takes, when that is a list
  // one can read (a body of a few keys, not an open-ended map).
  const listed = listKnown && unmatched && known.length > 0 && known.length <= LISTED_KNOWN;
  return listed ? `${message}; known keys: ${known.join(', ')}` : message;
}

/** The most known keys a message lists when an unknown one resembles none of them. */
const LISTED_KNOWN = 30;

/** A key's words, lower-cased: `requireApproval`, `require-approval` and `require_approval` alike. */
function words(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[-_\s.]+/)
    .filter((w) => w !== '');
}

/**
 * The one known key whose words include every word of `key`, if exactly one does: `require_approval`
 * is `require_plan_approval` with a word left out — too many edits for {@link nearestKey}.
 * @example keyWithTheseWords('require_approval', ['require_plan_approval', 'max_parallel']) // 'require_plan_approval'
 */
export function keyWithTheseWords(key: string, known: readonly string[]): string | null {
  const wanted = words(key);
  if (wanted.length === 0) return null;
  const matches = known.filter((k) => {
    const have = new Set(words(k));
    return wanted.every((w) => have.has(w));
  });
  return matches.length === 1 ? matches[0]! : null;
}

/**
 * What other planners and workflow engines call a plan's or a step's keys, by the key edgeplan calls it
 * by: `depends_on` (Airflow, Compose, LLM habit), `needs` (GitHub Actions), `args` are not a spelling
 * of `dependencies` or `parameters` within a few edits, so without these a plan written from habit got
 * a bare `Unknown key "depends_on"`. A model's plan is read with some of these names in place of ours
 * (the planner's STEP_ALIASES, src/planner/parse.ts); a plan a caller submits is refused with them, as
 * with a misspelling, since a key taken on a guess is a setting the caller did not see applied.
 */
const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  dependencies: ['depends_on', 'depends', 'deps', 'needs', 'requires', 'after', 'upstream'],
  parameters: ['params', 'args', 'arguments', 'inputs', 'input', 'with', 'kwargs'],
  action: ['tool', 'tool_name', 'toolname', 'function', 'uses', 'call'],
  fallback_action: ['fallback', 'on_error', 'on_failure'],
  steps: ['tasks', 'nodes', 'actions'],
  goal: ['objective', 'task', 'prompt'],
  timeout_ms: ['timeout'],
  retries: ['max_retries', 'retry'],
};

/** The known key `key` is another system's name for, if one is. @example knownSynonym('depends_on', ['id', 'dependencies']) // 'dependencies' */
export function knownSynonym(key: string, known: readonly string[]): string | null {
  // `dependsOn`, `depends-on` and `depends_on` alike.
  const flat = key.toLowerCase().replace(/[-_]/g, '');
  for (const k of known) {
    if (SYNONYMS[k]?.some((name) => name.replace(/_/g, '') === flat)) return k;
  }
  return null;
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
