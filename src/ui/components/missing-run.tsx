/**
 * The page for a run id the API does not know: mistyped, or another deployment's — or a run this page
 * showed that has since been deleted (another tab, the CLI, the retention sweep), found out when an
 * action or a read of it answered 404.
 */
import { href } from '../router';

export function MissingRun({ runId, seen = false }: { runId: string; seen?: boolean }) {
  return (
    <main class="run-page">
      <h1>{seen ? 'Run deleted' : 'No such run'}</h1>
      <p>
        <code class="missing-id">{runId}</code>
      </p>
      <p class="muted" role="alert">
        {seen
          ? 'This run was deleted after this page opened it (from another page, the CLI or the API, or by the retention sweep): its events and results are gone.'
          : 'This deployment has no run with that id: it may be mistyped, or belong to another deployment.'}{' '}
        <a href={href.runs()}>All runs</a>
      </p>
    </main>
  );
}
