/**
 * What a run's page says while it cannot follow the run: the service out of reach ("Connection lost",
 * a restart or the network), or the service answering but refusing the run for now — a `503` such
 * as `run_newer_format` after a rollback to a release that cannot read this run — with its message,
 * which says what to do. Either way the page keeps trying, and shows the run as last seen.
 * @example <RunConnection reconnecting answered={null} known />
 */
import { visibleText } from '../visible-text';

export function RunConnection({
  reconnecting,
  answered,
  known,
}: {
  reconnecting: boolean;
  /** What the service answered instead of the run (null: it did not answer). */
  answered: string | null;
  /** Whether the page has read anything of the run (then shown as last seen). */
  known: boolean;
}) {
  if (!reconnecting) return null;
  return (
    <p class="connection" role="status">
      {answered === null
        ? 'Connection lost — reconnecting…'
        : `The service answers, but cannot serve this run now — trying again… ${visibleText(answered)}`}{' '}
      {known ? <span class="muted">(showing the run as last seen)</span> : null}
    </p>
  );
}
