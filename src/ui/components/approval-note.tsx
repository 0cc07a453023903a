/**
 * Who approved the plan and what they said, and what their edit changed — in the page's head, where a
 * person reading the run later looks first (a rejection says so in the run's outcome instead).
 */
import {
  approvedVersion,
  decidedText,
  editedText,
  nameSourceNote,
  quotedName,
  type RunView,
} from '../../client';
import { visibleText } from '../visible-text';

export function ApprovalNote({ view }: { view: RunView }) {
  const a = view.approval;
  if (!a || a.decision !== 'granted') return null;
  const edit = view.versions.find((v) => v.kind === 'approval_edit');
  return (
    <p class="approval-note muted" data-approval={a.by}>
      Plan{approvedVersion(view)} approved
      {a.by !== 'timeout' && a.approver ? (
        // A name the decider gave is shown as given: anyone with the token or link may give any. How
        // it was established follows it (verified by Access, typed on the link …) when the event says.
        <>
          {' '}
          by{' '}
          <span data-approver dir="auto">
            {visibleText(quotedName(a.approver, a.approver_via))}
          </span>
          {nameSourceNote(a.approver_via) ? (
            <span class="name-source" data-name-source={a.approver_via}>
              {nameSourceNote(a.approver_via)}
            </span>
          ) : null}
        </>
      ) : decidedText(a) ? (
        // No name: how it came (the deadline, the approval link, an API token), or nothing more.
        <span data-decided-via={a.approver_via ?? a.by}> {decidedText(a)}</span>
      ) : null}
      {a.comment ? (
        <>
          :{' '}
          <q class="comment" dir="auto">
            {visibleText(a.comment)}
          </q>
        </>
      ) : null}
      {edit ? (
        <span data-approval-edit={edit.version ?? ''}>
          {' '}
          {/* In `edgeplan show`'s words: a revision's decider, named above, did not make this edit; its own is named. */}
          · {visibleText(editedText(view))}
        </span>
      ) : null}
    </p>
  );
}
