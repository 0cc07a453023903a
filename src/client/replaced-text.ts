/**
 * How a replaced step is named in words, the same in the dashboard and the terminal: which plan
 * version replaced it, what kind of change that was, and why.
 * @example
 * replacedText({ plan_version: 1, change: 'removed', replaced_by: { version: 2, kind: 'revision', reason: 'step fetch failed' } })
 * // 'v1, removed by v2 (revision): step fetch failed'
 */
import type { ReplacedStep } from './run-view';

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
