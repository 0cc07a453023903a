/**
 * A step's parameters in a line an approver can scan: compact JSON with each long top-level value cut
 * (a 2,000-character prompt no longer hides the keys after it), the whole cut at {@link FOLD_AT}.
 * @example
 * folded({ prompt: 'Summarise…'.repeat(100), model: 'small' }) // '{"prompt":"Summarise…Summ…","model":"small"}'
 */
import { visibleJson } from './visible-text';

/** Parameters whose compact JSON is longer than this are shown folded. */
export const FOLD_AT = 200;
/** A long top-level value's UTF-16 units kept when folded. */
export const VALUE_KEPT = 60;

/** `value`'s compact JSON, folded when longer than {@link FOLD_AT}; `whole` is what it folds. */
export function foldJson(value: Record<string, unknown>): { whole: string; folded: string | null } {
  const whole = visibleJson(JSON.stringify(value));
  if (whole.length <= FOLD_AT) return { whole, folded: null };
  const parts = Object.entries(value).map(
    ([k, v]) =>
      `${visibleJson(JSON.stringify(k))}:${cut(visibleJson(JSON.stringify(v) ?? 'null'), VALUE_KEPT)}`,
  );
  return { whole, folded: cut(`{${parts.join(',')}}`, FOLD_AT) };
}

/** `s` cut to `n` UTF-16 units with an ellipsis, never between the halves of a surrogate pair. */
function cut(s: string, n: number): string {
  if (s.length <= n) return s;
  const end = /[\uD800-\uDBFF]/.test(s[n - 1] ?? '') ? n - 1 : n;
  return `${s.slice(0, end)}…`;
}
