/**
 * What a run waits to have approved, as `edgeplan show`, `edgeplan approve` and the live view's
 * question print it: the version and its deadline, then — for a revision — what it changes since the
 * last approved version and why (the dashboard and the approval webhook say the same). Plan-written
 * text (step ids, descriptions, reasons) goes through terminalText: no escape sequence reaches the
 * terminal. And the name a decision is sent with: `--as`, else `EDGEPLAN_APPROVER`.
 */
import { approvalChangesLines, approvalDeadlineShort, type PendingApproval } from '../client';
import type { Style } from './render';
import { terminalText } from './terminal-text';

/**
 * `waiting for approval of plan v2 (until 2026-11-30 15:00 UTC, then rejected)` and the changes' lines, or none when
 * the run waits for no approval.
 * @example pendingApprovalLines(run.pending_approval, ctx.style).forEach((l) => ctx.print(l));
 */
export function pendingApprovalLines(p: PendingApproval | null | undefined, c: Style): string[] {
  if (!p) return [];
  const deadline = approvalDeadlineShort(p);
  const until = deadline ? ` (${deadline})` : '';
  const head = c.yellow(`waiting for approval of plan v${p.plan_version}${until}`);
  if (!p.changes) return [head];
  const [summary = '', ...rest] = approvalChangesLines(p.changes).map(terminalText);
  return [head, c.bold(summary), ...rest.map((l) => `  ${l}`)];
}

/** The decider's name to send: `--as`, else `EDGEPLAN_APPROVER`; none when neither is given. */
export function approverName(as: string | undefined): { approver?: string } {
  const name = (as ?? process.env.EDGEPLAN_APPROVER ?? '').trim();
  return name ? { approver: name } : {};
}
