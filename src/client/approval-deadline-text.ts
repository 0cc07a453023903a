/**
 * When an approval is due and what happens then if nobody decides (`Run.pending_approval`'s
 * `deadline_at` and `default_action`), in words — the same in the terminal and the dashboard. Times
 * in UTC, as the rest of both say them.
 * @example
 * approvalDeadlineText({ deadline_at: '2026-12-02T07:30:00.000Z', default_action: 'reject' });
 * // 'Decide by 2026-12-02 07:30 UTC: if nobody does, the plan is rejected then and the run ends (approval.default_action).'
 */
import type { PendingApproval } from './types';

type Deadline = Pick<PendingApproval, 'deadline_at' | 'default_action'>;

/** `2026-12-02 07:30 UTC` for an ISO-8601 time. */
export function utcMinute(iso: string): string {
  return `${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** What happens at the deadline: `rejected` or `approved`. */
const outcome = (p: Deadline): string => (p.default_action === 'approve' ? 'approved' : 'rejected');

/** The sentence an approver reads beside the decision; null for an approval with no deadline. */
export function approvalDeadlineText(p: Deadline): string | null {
  if (p.deadline_at === null) return null;
  const then = p.default_action === 'approve' ? 'the run goes on' : 'the run ends';
  return `Decide by ${utcMinute(p.deadline_at)}: if nobody does, the plan is ${outcome(p)} then and ${then} (approval.default_action).`;
}

/** `until 2026-12-02 07:30 UTC, then rejected` — the short form a status line holds; null for none. */
export function approvalDeadlineShort(p: Deadline): string | null {
  if (p.deadline_at === null) return null;
  return `until ${utcMinute(p.deadline_at)}, then ${outcome(p)}`;
}
