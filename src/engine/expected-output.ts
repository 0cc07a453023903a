/**
 * The structural `expected_output` check (used when no LLM judge is configured): an output that is
 * empty, or whose shape contradicts what the description names, is unexpected. Deliberately lenient —
 * free text it cannot read ("a short summary") passes.
 */
import { textStart } from '../text-cut';
const SHAPES: [RegExp, (v: unknown) => boolean, string][] = [
  [
    /\b(list|array|items)\b/i,
    (v) => Array.isArray(v) || (isObject(v) && Object.values(v).some(Array.isArray)),
    'a list',
  ],
  [
    /\b(number|count|integer|total|amount)\b/i,
    (v) => typeof v === 'number' || (isObject(v) && Object.values(v).some((x) => typeof x === 'number')),
    'a number',
  ],
  [
    /\b(boolean|true or false|yes or no)\b/i,
    (v) => typeof v === 'boolean' || (isObject(v) && Object.values(v).some((x) => typeof x === 'boolean')),
    'a boolean',
  ],
];

/** Why `output` does not match `expected`, or null when it may. */
export function unexpectedOutput(expected: string, output: unknown): string | null {
  if (isEmpty(output)) return `expected ${JSON.stringify(expected)} but the output is empty`;
  for (const [pattern, fits, what] of SHAPES) {
    if (pattern.test(expected) && !fits(output))
      return `expected ${JSON.stringify(expected)} (${what}) but got ${describe(output)}`;
  }
  return null;
}

function isEmpty(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (typeof v === 'string') return v.trim() === '';
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 80 ? `${textStart(text, 77)}...` : text;
}
