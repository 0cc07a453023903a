/**
 * What a plan version awaiting approval changes since the last approved one (`Run.pending_approval
 * .changes`, the approval webhook's `changes`), in words — the same in the terminal, the dashboard
 * and a team's own approval UI — and who decided an approval.
 * @example
 * const run = await client.getRun(runId);
 * const c = run.pending_approval?.changes;
 * if (c) console.log(approvalChangesLines(c).join('\n'));
 * // v2 adds 1 step and changes 1 since v1 was approved
 * // why: v2 (revision after step flaky failed): step "flaky" failed: boom
 * // + fixed (demo.echo), after a: echo fixed
 * // ~ fetch: parameters url
 */
import { namedText, unnamedDecisionWords } from './name-source-text';
import type { ApprovalChanges, RevisionCause } from './types';

type Changed = ApprovalChanges['changed'][number];

/** What changed in one step: `parameters url, method; depends on +a −b; action x → y; timeout_ms`. */
export function changedStepText(c: Changed): string {
  const parts: string[] = [];
  if (c.parameters.length > 0) parts.push(`parameters ${c.parameters.join(', ')}`);
  const deps = [...c.dependencies_added.map((d) => `+${d}`), ...c.dependencies_removed.map((d) => `−${d}`)];
  if (deps.length > 0) parts.push(`depends on ${deps.join(' ')}`);
  const action = c.fields.action;
  if (action) parts.push(`action ${word(action.from)} → ${word(action.to)}`);
  const rest = Object.keys(c.fields).filter((k) => !['parameters', 'dependencies', 'action'].includes(k));
  if (rest.length > 0) parts.push(rest.join(', '));
  return parts.join('; ');
}

/** A field's value in a line: a string as it is, anything else as JSON, none as `–`. */
const word = (v: unknown): string => (v == null ? '–' : typeof v === 'string' ? v : JSON.stringify(v));

/** Why a version was written: `v2 (revision after step flaky failed): <reason>`. */
export function revisionCauseText(r: RevisionCause): string {
  const after =
    r.trigger === 'step_failure' && r.step_id
      ? ` after step ${r.step_id} failed`
      : r.trigger === 'unexpected_result' && r.step_id
        ? ` after step ${r.step_id}’s unexpected result`
        : r.trigger === 'user_request'
          ? ' asked for by a user'
          : r.trigger === 'next_turn'
            ? ', the next turn'
            : r.trigger
              ? ` (${r.trigger.replace(/_/g, ' ')})`
              : '';
  const kind = r.kind === 'approval_edit' ? 'approver’s edit' : r.kind;
  return `v${r.plan_version} (${kind}${after})${r.reason ? `: ${r.reason}` : ''}`;
}

/**
 * The changes as lines: the summary, why each version since was written, then `+` added, `~` changed
 * and `−` removed steps.
 */
export function approvalChangesLines(c: ApprovalChanges): string[] {
  const lines = [c.summary];
  for (const r of c.revisions) lines.push(`why: ${revisionCauseText(r)}`);
  for (const a of c.added) {
    const after = a.dependencies.length ? `, after ${a.dependencies.join(', ')}` : '';
    const what = a.description && a.description !== a.action ? `: ${a.description}` : '';
    lines.push(`+ ${a.step_id} (${a.action})${after}${what}`);
  }
  for (const s of c.changed) lines.push(`~ ${s.step_id}: ${changedStepText(s)}`);
  for (const r of c.removed) lines.push(`− ${r.step_id} (${r.action})`);
  return lines;
}

/**
 * Who decided an approval, in words: `“Ada”` (the name they gave, quoted: as given, not verified) and
 * how the name was established when the event says — `“Ada” (typed on the approval link)`,
 * `ada@example.com (verified by Access)` — `the approver`, or `the approval deadline (its default action)`.
 */
export function deciderText(a: {
  by: string;
  approver?: string | undefined;
  approver_via?: string | undefined;
}): string {
  if (a.by === 'timeout') return 'the approval deadline (its default action)';
  return a.approver ? namedText(a.approver, a.approver_via) : 'the approver';
}

/**
 * How an approval was decided, in words to follow "approved" or "rejected": `by “Ada” (typed on the
 * approval link)`, `from the approval link` (no name given), `with the API token`, `when the approval
 * deadline passed (its default action)` — or '' when the event says no more than that a person
 * decided (one recorded before it said how). Never "by the approver": nobody was named.
 * @example `Plan approved ${decidedText({ by: 'approver', approver_via: 'link' })}` // 'Plan approved from the approval link'
 */
export function decidedText(a: {
  by: string;
  approver?: string | undefined;
  approver_via?: string | undefined;
}): string {
  if (a.by === 'timeout') return 'when the approval deadline passed (its default action)';
  if (a.approver) return `by ${namedText(a.approver, a.approver_via)}`;
  return unnamedDecisionWords(a.approver_via) ?? '';
}
