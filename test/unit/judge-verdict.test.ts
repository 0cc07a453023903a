import { describe, expect, it } from 'vitest';
import { parseVerdict } from '../../src/planner/judge-verdict';

describe("the LLM judge's verdict", () => {
  it('reads ok and its common synonyms, in prose or fences', () => {
    expect(parseVerdict('{"ok": false, "reason": "no url"}')).toEqual({ ok: false, reason: 'no url' });
    expect(parseVerdict('Sure:\n```json\n{"met": true, "reason": "done"}\n```')).toEqual({
      ok: true,
      reason: 'done',
    });
    expect(parseVerdict('{"passed": false}')).toEqual({ ok: false, reason: 'no reason given' });
  });

  it('refuses an answer without a boolean verdict instead of calling it a pass', () => {
    for (const text of ['looks fine to me', '{"reason": "fine"}', '{"ok": "yes"}', '{"ok": tru']) {
      expect(() => parseVerdict(text)).toThrow(expect.objectContaining({ code: 'judge_unreadable' }));
    }
  });
});
