/**
 * What a run's page says while it cannot follow the run: the service out of reach ("Connection lost",
 * a restart or the network), or the service answering but refusing the run for now — a `503` such
 * as `run_newer_format` after a rollback to a release that cannot read this run — with its message,
 * which says what to do. Either way the page keeps trying, and shows the run as last seen. And the
 * run followed without a live connection, the run serving as many as it takes: a plain note, since
 * the page still shows the run as it goes, only a little later.
 * @example <RunConnection reconnecting answered={null} polling={null} known />
 */
import { visibleText } from '../visible-text';

export function RunConnection({
  reconnecting,
  answered,
  polling,
  known,
}: {
  reconnecting: boolean;
  /** What the service answered instead of the run (null: it did not answer). */
  answered: string | null;
  /** Why the run is followed by asking the server rather than live (null: live). */
  polling: string | null;
  /** Whether the page has read anything of the run (then shown as last seen). */
  known: boolean;
}) {
  if (!reconnecting && polling !== null)
    return (
      // The server's own words (written for an API client) on hover; the note says it for a person.
      <p class="connection" role="status" data-following="polling" title={visibleText(polling)}>
        Following this run by asking the server, not over a live connection: the run has as many live
        connections open as it serves, so changes may show a moment late.
      </p>
    );
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
