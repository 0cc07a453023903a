/**
 * How large a value read from YAML is once its aliases are written out. The reader shares an
 * anchor's value between its aliases, so the value is small in memory — until it is serialised: one
 * 2 MB anchor used 99 times became a 400 MB response, and a run's plan too large to store (a 500).
 * The walk stops as soon as the limit is passed, so it costs at most that much, whatever the sharing.
 */

/**
 * Whether `value` written as JSON would take more than `limit` characters (counted a little low:
 * strings without quotes or escapes, keys and numbers by their text, punctuation by one a value).
 * @example expandedSizeOver({ a: 'xx', b: ['yy', 'yy'] }, 5) // true
 */
export function expandedSizeOver(value: unknown, limit: number): boolean {
  let size = 0;
  const todo: unknown[] = [value];
  while (todo.length > 0) {
    const v = todo.pop();
    size += 1;
    if (typeof v === 'string') size += v.length;
    else if (typeof v === 'number' || typeof v === 'boolean') size += String(v).length;
    else if (Array.isArray(v)) for (const item of v as unknown[]) todo.push(item);
    else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        size += k.length;
        todo.push(item);
      }
    }
    if (size > limit) return true;
  }
  return false;
}
