/**
 * How a replaced step, and a plan version's changes, are said in words, the same in the dashboard
 * and the terminal: which plan version replaced the step, what kind of change that was, and why.
 * @example
 * replacedText({ plan_version: 1, change: 'removed', replaced_by: { version: 2, kind: 'revision', reason: 'step fetch failed' } })
 * // 'v1, removed by v2 (revision): step fetch failed'
 */
import { decidedText } from './approval-changes-text';
import type { ReplacedStep, RunView } from './run-view-types';

/** A plan change's kind as a person says it. */
const KIND_WORDS: Record<string, string> = {
  revision: 'revision',
  approval_edit: 'approver’s edit',
  rollback: 'rollback',
  turn: 'next turn',
};

/** `v1, removed by v2 (revision): <reason>` or `v1, run again in v2 (…): <reason>`. */
export function replacedText(r: Pick<ReplacedStep, 'plan_version' | 'change' | 'replaced_by'>): string {
  const by = r.replaced_by;
  const kind = KIND_WORDS[by.kind] ?? by.kind;
  const what = r.change === 'removed' ? 'removed by' : 'run again in';
  const from = r.plan_version === null ? '' : `v${r.plan_version}, `;
  return `${from}${what} v${by.version ?? '?'} (${kind})${by.reason ? `: ${by.reason}` : ''}`;
}

/**
 * What a plan version did to the steps, in words: `changed a; removed risky; added b`, or `` when it
 * touched none.
 * @example changesText({ added: ['b'], changed: ['a'], removed: [] }) // 'changed a; added b'
 */
export function changesText(
  c: { added: string[]; changed: string[]; removed: string[] } | undefined,
): string {
  if (!c) return '';
  const part = (verb: string, ids: string[]) => (ids.length ? `${verb} ${ids.join(', ')}` : '');
  return [part('changed', c.changed), part('removed', c.removed), part('added', c.added)]
    .filter(Boolean)
    .join('; ');
}

/** A replaced step's last status as shown: `not run` for one that never started (not "pending"). */
export const replacedStatus = (r: Pick<ReplacedStep, 'status' | 'history'>): string =>
  r.history.length === 0 && r.status === 'pending' ? 'not run' : r.status;

/**
 * ` v2` — the version an approval decided — where saying it matters: the decision was on a revision,
 * or another version awaits approval now; `` otherwise (one plan, approved once).
 * @example `Plan${approvedVersion(view)} approved` // 'Plan v2 approved'
 */
export function approvedVersion(view: Pick<RunView, 'approval' | 'waiting'>): string {
  const a = view.approval;
  if (a?.plan_version === undefined) return '';
  return a.revision === true || view.waiting?.kind === 'approval' ? ` v${a.plan_version}` : '';
}

/**
 * The approver's edit, if the plan had one: `edited into v2: changed a` when the decision shown made
 * the edit — said just before it, how that decision came (a name, the approval link, an API token)
 * is not said again — else `edited into v2 when approved by “Ada” (typed on the approval link):
 * changed a`: a later decision (a revision's, `approval.revisions: "ask"`) is the one shown, and the
 * edit names its own decider, kept with its version — or, for an edit whose events say nothing of it,
 * no one (`edited into v2 when approved: changed a`), never the later decider. '' without an edit.
 * @example editedText(view) // 'edited into v2 when approved by “Ada” (given with the API token): changed fetch'
 */
export function editedText(view: Pick<RunView, 'approval' | 'versions'>): string {
  const edit = view.versions.find((v) => v.kind === 'approval_edit');
  if (!edit) return '';
  const a = view.approval;
  const what = changesText(edit.changes);
  const byShown = a?.decision === 'granted' && !a.revision;
  const by = edit.edited_by ? decidedText({ by: 'approver', ...edit.edited_by }) : '';
  const when = byShown ? '' : ` when approved${by ? ` ${by}` : ''}`;
  return `edited into v${edit.version ?? '?'}${when}${what ? `: ${what}` : ''}`;
}
