/**
 * Deleting an ended run from its page: the Delete button asks first, here, in the page (what goes, that
 * it cannot be undone); confirmed, the run is deleted and the page goes back to the runs list — also
 * when it was deleted elsewhere meanwhile.
 */
import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { EdgeplanApiError } from '../../client';
import { api, errorText } from '../api';
import { href, navigate } from '../router';
import { useEscape } from '../use-escape';
import { ErrorAlert } from './error-alert';

export function DeleteRun({
  runId,
  onKeep,
  opener,
}: {
  runId: string;
  /** Closes the question, nothing deleted (Keep it, or Escape). */
  onKeep: () => void;
  /** The Delete button: Escape pressed on it closes the question too. */
  opener: RefObject<HTMLButtonElement | null>;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Focus starts on the choice that deletes nothing: a second Enter does not delete the run.
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => keep.current?.focus(), []);
  const group = useRef<HTMLDivElement>(null);
  useEscape(!busy, onKeep, [group, opener]);

  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      await api().deleteRun(runId);
      navigate(href.runs());
    } catch (e) {
      // Already gone (deleted from another tab, the CLI or the retention sweep): what was asked is
      // done, not a "not_found" to read beside the run as if it still were there.
      if (e instanceof EdgeplanApiError && e.status === 404) {
        navigate(href.runs());
        return;
      }
      setError(errorText(e));
      setBusy(false);
    }
  };

  return (
    <div class="delete-run" role="group" aria-labelledby="delete-run-question" ref={group}>
      <p id="delete-run-question">
        <strong>Delete this run?</strong> Its events, step results, plan versions and planning trace are
        removed, and its child runs with it. This cannot be undone.
      </p>
      <div class="actions">
        <button type="button" class="danger" disabled={busy} onClick={() => void remove()}>
          {busy ? 'Deleting…' : 'Delete run'}
        </button>
        <button type="button" ref={keep} disabled={busy} onClick={onKeep}>
          Keep it
        </button>
      </div>
      <ErrorAlert text={error} />
    </div>
  );
}
