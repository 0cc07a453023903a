/** The page for a run id the API does not know: mistyped, or another deployment's. */
import { href } from '../router';

export function MissingRun({ runId }: { runId: string }) {
  return (
    <main class="run-page">
      <h1>No such run</h1>
      <p>
        <code class="missing-id">{runId}</code>
      </p>
      <p class="muted" role="alert">
        This deployment has no run with that id: it may be mistyped, or belong to another deployment.{' '}
        <a href={href.runs()}>All runs</a>
      </p>
    </main>
  );
}
