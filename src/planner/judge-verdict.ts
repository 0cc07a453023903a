/**
 * The LLM judge's answer (`{"ok": boolean, "reason": string}`, as its prompt asks) read at the
 * boundary: the first JSON object in the text, its verdict a boolean `ok` — or a synonym models use for
 * it (`met`, `pass`, `passed`, `satisfied`). An answer without one is not read as a pass: it throws
 * `judge_unreadable`, which the caller treats as "the judge could not answer". Pure.
 */
import { z } from 'zod';
import { EdgeplanError } from '../errors';
import { textStart } from '../text-cut';

const VERDICT_KEYS = ['ok', 'met', 'pass', 'passed', 'satisfied'] as const;

const VerdictSchema = z.looseObject({
  ...Object.fromEntries(VERDICT_KEYS.map((k) => [k, z.boolean().optional()])),
  reason: z.unknown().optional(),
});

/**
 * @example parseVerdict('{"ok": false, "reason": "no url"}') // { ok: false, reason: 'no url' }
 */
export function parseVerdict(text: string): { ok: boolean; reason: string } {
  const unreadable = (why: string) =>
    new EdgeplanError(
      'judge_unreadable',
      `The judge's answer ${why}: ${JSON.stringify(textStart(text, 200))}`,
    );
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) throw unreadable('holds no JSON object');
  let json: unknown;
  try {
    json = JSON.parse(text.slice(start, end + 1));
  } catch {
    throw unreadable('is not valid JSON');
  }
  const parsed = VerdictSchema.safeParse(json);
  const verdict = parsed.success
    ? VERDICT_KEYS.map((k) => parsed.data[k]).find((v) => v !== undefined)
    : undefined;
  if (typeof verdict !== 'boolean') throw unreadable('has no boolean "ok"');
  const reason = parsed.success ? parsed.data.reason : undefined;
  return {
    ok: verdict,
    reason: typeof reason === 'string' && reason.trim() !== '' ? reason : 'no reason given',
  };
}
