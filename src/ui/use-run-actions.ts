/**
 * A run page's actions: which the run allows now, what is under way (one at a time), the refusal to
 * show, the approver's comment, Modify's editor and Delete's question, and where focus goes after an
 * action. The controls (run-actions.tsx, the forms) call {@link RunActions.act}.
 */
import { useRef, useState } from 'preact/hooks';
import type { RefObject } from 'preact';
import type { EdgeplanClient } from '../client';
import { api, errorText } from './api';
import type { RunStatusNow } from './run-status';
import type { LiveRun } from './use-run';
import { approverOf, useApproverName } from './approver-name';

/** The plan Modify sends (the approval body's). */
type ModifiedPlan = Parameters<EdgeplanClient['modify']>[1]['plan'];

export type RunActions = {
  /** The action under way, if any: every control is disabled meanwhile. */
  busy: string | null;
  /** The last refusal, as said to the person. */
  message: string | null;
  setMessage: (m: string | null) => void;
  /** The comment sent with Approve, Reject and Modify. */
  comment: string;
  setComment: (c: string) => void;
  /** The name sent with them (`approver`), remembered in this browser. */
  approver: string;
  setApprover: (name: string) => void;
  modifying: boolean;
  setModifying: (m: boolean | ((m: boolean) => boolean)) => void;
  deleting: boolean;
  setDeleting: (d: boolean | ((d: boolean) => boolean)) => void;
  modifyButton: RefObject<HTMLButtonElement>;
  deleteButton: RefObject<HTMLButtonElement>;
  /** What the run allows now (nothing while the page replays its past). */
  offers: { retry: boolean; cancel: boolean; delete: boolean; stepRetry: boolean; rollBack: boolean };
  /**
   * Resolves true when the API took the action. Then focus, if still on the control pressed, goes to
   * the run's heading (the status change is announced on its own); after a refusal it stays on the
   * control, disabled while the request was in flight (the refusal is announced as an alert) — or,
   * when the run read again no longer offers it (decided elsewhere), goes to the heading too.
   * `follow`: the run goes on (approved, retried), so its events are followed again.
   */
  act: (name: string, action: () => Promise<unknown>, follow?: boolean) => Promise<boolean>;
  /**
   * Sends Modify's plan. Not through act(): a refusal (422 with findings, 409) is thrown back to the
   * editor, which stays open with the edits and lists the findings.
   */
  sendModified: (plan: ModifiedPlan) => Promise<void>;
};

export function useRunActions(
  runId: string,
  live: LiveRun,
  now: RunStatusNow,
  heading: RefObject<HTMLHeadingElement>,
): RunActions {
  const [busy, setBusy] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [modifying, setModifying] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const deleteButton = useRef<HTMLButtonElement>(null);
  const modifyButton = useRef<HTMLButtonElement>(null);
  const [comment, setComment] = useState('');
  const [approver, setApprover] = useApproverName();
  const { acts, ended, status } = now;

  const act = async (name: string, action: () => Promise<unknown>, follow = false) => {
    const from = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setBusy(name);
    setMessage(null);
    let ok = false;
    try {
      await action();
      ok = true;
      if (follow) live.restart();
      else await live.refresh();
    } catch (e) {
      setMessage(errorText(e));
      // Refused (409: approved or cancelled elsewhere, say): what the page shows is out of date, and
      // the run's events may be slow to say so. Read it now, so the page shows what the run allows.
      await live.refresh();
    }
    setBusy(null);
    // After the render that enables the controls again.
    requestAnimationFrame(() => {
      const now = document.activeElement;
      if (now !== from && now !== document.body && now !== null) return;
      if (ok || !from?.isConnected) heading.current?.focus();
      else from.focus();
    });
    return ok;
  };

  const sendModified = async (plan: ModifiedPlan) => {
    setBusy('modify');
    setMessage(null);
    try {
      // The approver's comment, as Approve and Reject send it: the new version's reason.
      // Edits of the version the page shows: refused if the run awaits another by the time they arrive.
      const shown = live.view.plan_version;
      await api().modify(runId, {
        plan,
        comment: comment.trim() || 'modified in the dashboard',
        ...approverOf(approver),
        ...(shown === null ? {} : { plan_version: shown }),
      });
    } catch (e) {
      // As act() does: read the run again. Decided elsewhere, it no longer waits for approval
      // and the editor (with the refusal in it) goes away: the page says why instead.
      const now = await live.refresh();
      if (now && now.status !== 'awaiting_approval') setMessage(errorText(e));
      throw e;
    } finally {
      setBusy(null);
    }
    setModifying(false);
    live.restart();
    // The editor, and the button pressed in it, are gone: focus to the heading, not the page's start.
    requestAnimationFrame(() => {
      const now = document.activeElement;
      if (!now || now === document.body || !now.isConnected) heading.current?.focus();
    });
  };

  const retryable = acts && ended && !live.view.unapproved;
  return {
    busy,
    message,
    setMessage,
    comment,
    setComment,
    approver,
    setApprover,
    modifying,
    setModifying,
    deleting,
    setDeleting,
    modifyButton,
    deleteButton,
    offers: {
      retry: retryable && status !== 'completed',
      cancel: acts && !ended,
      delete: acts && ended,
      stepRetry: retryable,
      // The API rolls back while the run plans, waits or runs, or after it failed or was aborted.
      rollBack: acts && !['completed', 'cancelled'].includes(status),
    },
    act,
    sendModified,
  };
}
