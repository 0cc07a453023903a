/**
 * Whole numbers in query strings and paths: digits only. `z.coerce.number()` read an empty value as
 * 0, `0x10` as 16 and ` 1` as 1, and a parameter given twice as "received NaN"; here each is refused
 * saying what to send. The documented type stays `integer`.
 */
import { z } from '@hono/zod-openapi';

/**
 * `inner` (a number schema with its bounds) behind a digits-only reading of the text.
 * @example wholeNumber(z.number().int().min(1).max(1000)) // "25" → 25; "1e3", "", "-1" → 400
 */
export function wholeNumber<T extends z.ZodNumber>(inner: T) {
  return z.preprocess((v, ctx) => {
    if (typeof v === 'number' || (typeof v === 'string' && /^\d{1,16}$/.test(v))) return Number(v);
    ctx.addIssue({
      code: 'custom',
      input: v,
      message: Array.isArray(v)
        ? 'given more than once: give it once'
        : `expected a whole number in digits, got ${JSON.stringify(v)}`,
    });
    return z.NEVER;
  }, inner);
}
