/**
 * What the plan awaiting approval changes since the last approved version (`pending_approval.changes`),
 * shown first where an approver decides — the run page and the approval link's page: one line of
 * summary, why the planner wrote the new version, then each step added, changed (which parameters with
 * their old and new values, which dependencies, the action) and removed.
 * @example
 * {changes ? <ApprovalChanges changes={changes} /> : null}
 */
import { changedStepText, revisionCauseText, type ApprovalChanges as Changes } from '../../client';
import { visibleJson, visibleText } from '../visible-text';
import { clipText } from '../../text-cut';

/** Longest old or new parameter value shown inline; the plan table below has it whole. */
const VALUE_SHOWN = 120;

export function ApprovalChanges({ changes }: { changes: Changes }) {
  const c = changes;
  return (
    <section
      class="approval-changes"
      aria-labelledby="approval-changes-title"
      data-approval-changes={c.plan_version}
    >
      {/* The summary is the heading: "v2 adds 1 step and changes 1 since v1 was approved". */}
      <h2 id="approval-changes-title" data-approval-summary>
        {c.summary}
      </h2>
      {c.revisions.length > 0 ? (
        <ul class="why">
          {c.revisions.map((r) => (
            <li key={r.plan_version} data-revision-cause={r.plan_version}>
              Why: {visibleText(revisionCauseText(r))}
            </li>
          ))}
        </ul>
      ) : null}
      <ul class="step-changes">
        {c.added.map((a) => (
          <li key={`+${a.step_id}`} data-change="added" data-step={a.step_id}>
            <span class="change-mark added">added</span> <code>{visibleText(a.step_id)}</code>{' '}
            <span class="muted">{visibleText(a.action)}</span>
            {a.dependencies.length ? (
              <span class="muted"> · after {visibleText(a.dependencies.join(', '))}</span>
            ) : null}
            {a.description && a.description !== a.action ? <> — {visibleText(a.description)}</> : null}
          </li>
        ))}
        {c.changed.map((s) => (
          <li key={`~${s.step_id}`} data-change="changed" data-step={s.step_id}>
            <span class="change-mark changed">changed</span> <code>{visibleText(s.step_id)}</code>:{' '}
            {visibleText(changedStepText(s))}
            {s.parameters.length ? (
              <ul class="param-changes">
                {s.parameters.map((k) => (
                  <li key={k} data-param={k}>
                    <code>{visibleText(k)}</code>: <del>{shown(s.fields.parameters?.from, k)}</del> →{' '}
                    <ins>{shown(s.fields.parameters?.to, k)}</ins>
                  </li>
                ))}
              </ul>
            ) : null}
          </li>
        ))}
        {c.removed.map((r) => (
          <li key={`-${r.step_id}`} data-change="removed" data-step={r.step_id}>
            <span class="change-mark removed">removed</span> <code>{visibleText(r.step_id)}</code>{' '}
            <span class="muted">{visibleText(r.action)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** One parameter's value in a parameters object, as JSON cut to a line (absent: `–`). */
function shown(params: unknown, key: string): string {
  const v =
    params !== null && typeof params === 'object' && !Array.isArray(params)
      ? (params as Record<string, unknown>)[key]
      : undefined;
  if (v === undefined) return '–';
  const json = visibleJson(JSON.stringify(v) ?? 'null');
  return clipText(json, VALUE_SHOWN);
}
