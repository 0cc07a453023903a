/**
 * A lone UTF-16 surrogate in a JSON body (`"\ud800"`, an escape JSON's grammar allows): text no UTF-8
 * can carry (RFC 8259 §8.2; I-JSON, RFC 7493 §2.1, forbids it). Taken, it would reach every store and
 * tool that encodes text as UTF-8 as U+FFFD — a run's goal listed in the run index as "g\uFFFD"
 * while the run says "g\ud800" — so the body is refused instead, as a body that is not UTF-8 is.
 */

/** A surrogate escape in the body's text: only then is the parse walked. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Where `parsed` (the parse of `text`) holds a string or key with a lone surrogate — `plan.goal`,
 * `steps[0]`, `input["k\uFFFD"] (its key)` — or null when none does.
 * @example loneSurrogatePath('{"a":["\\ud800"]}', { a: ['\ud800'] }) // 'a[0]'
 */
export function loneSurrogatePath(text: string, parsed: unknown): string | null {
  return SURROGATE_ESCAPE.test(text) ? find(parsed, '') : null;
}

function find(value: unknown, path: string): string | null {
  if (typeof value === 'string') return LONE.test(value) ? path || '(the body)' : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = find(value[i], `${path}[${i}]`);
      if (at !== null) return at;
    }
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  for (const key of Object.keys(value)) {
    const keyPath = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
      ? `${path}${path ? '.' : ''}${key}`
      : `${path}[${JSON.stringify(key)}]`;
    if (LONE.test(key)) return `${keyPath} (its key)`;
    const at = find((value as Record<string, unknown>)[key], keyPath);
    if (at !== null) return at;
  }
  return null;
}
