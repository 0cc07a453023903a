import { describe, expect, it } from 'vitest';
import { approvalDeadlineShort, approvalDeadlineText } from '../../src/client';

const at = '2026-12-02T07:30:59.999Z';

describe('approvalDeadlineText', () => {
  it('says when the decision is due, in UTC, and what happens then by default', () => {
    expect(approvalDeadlineText({ deadline_at: at, default_action: 'reject' })).toBe(
      'Decide by 2026-12-02 07:30 UTC: if nobody does, the plan is rejected then and the run ends (approval.default_action).',
    );
    expect(approvalDeadlineText({ deadline_at: at, default_action: 'approve' })).toBe(
      'Decide by 2026-12-02 07:30 UTC: if nobody does, the plan is approved then and the run goes on (approval.default_action).',
    );
  });

  it('has a short form for a status line, and nothing to say without a deadline', () => {
    expect(approvalDeadlineShort({ deadline_at: at, default_action: 'approve' })).toBe(
      'until 2026-12-02 07:30 UTC, then approved',
    );
    expect(approvalDeadlineShort({ deadline_at: null, default_action: 'reject' })).toBeNull();
    expect(approvalDeadlineText({ deadline_at: null, default_action: 'reject' })).toBeNull();
  });
});
