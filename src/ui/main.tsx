/**
 * The dashboard (src/ui, bundled by scripts/build-dashboard.mjs into the Worker's assets): runs,
 * each run live, new runs, and the approval link's page when the server hands one over.
 */
import { render } from 'preact';
import { useState } from 'preact/hooks';
import { getToken, setToken } from './api';
import { ErrorAlert } from './components/error-alert';
import { approvalDataOf } from './page-inputs';
import { ApprovalPage } from './pages/approval-page';
import { NewRunPage } from './pages/new-run-page';
import { RunPage } from './pages/run-page';
import { RunsPage } from './pages/runs-page';
import { href, useRoute } from './router';
import { useSignedIn } from './use-signed-in';

function TokenField() {
  const [token, set] = useState(getToken());
  // Behind Cloudflare Access the browser needs no API token: Access vouches for it on every request.
  const signedIn = useSignedIn();
  if (signedIn !== null)
    return (
      <span class="token" data-signed-in>
        Signed in as {signedIn}
      </span>
    );
  return (
    <label class="token">
      API token{' '}
      <input
        type="password"
        autocomplete="off"
        placeholder="not set"
        title="One of the server’s API_TOKEN tokens, kept in this browser (none is needed when the server allows anonymous use)"
        value={token}
        onChange={(e) => {
          const v = (e.target as HTMLInputElement).value.trim();
          set(v);
          setToken(v);
          location.reload();
        }}
      />
    </label>
  );
}

function App() {
  const route = useRoute();
  return (
    <>
      <header class="top">
        <a class="brand" href={href.runs()}>
          edgeplan
        </a>
        <nav>
          <a href={href.runs()}>Runs</a>
          <a href={href.newRun()}>New run</a>
          <a href="/docs">API</a>
        </nav>
        <TokenField />
      </header>
      {route.page === 'runs' ? <RunsPage /> : null}
      {route.page === 'new' ? <NewRunPage /> : null}
      {route.page === 'run' ? <RunPage key={route.runId} runId={route.runId} tab={route.tab} /> : null}
    </>
  );
}

/** The approval link's page, when the server handed one over; what it says when its data is unreadable. */
function ApprovalOrApp() {
  const approval = approvalDataOf(document.getElementById('edgeplan-data')?.textContent);
  if (approval === null) return <App />;
  if (approval.ok) return <ApprovalPage data={approval.value} />;
  return (
    <main>
      <h1>Approval</h1>
      <ErrorAlert text={`${approval.error}. Reload the link, or decide from the dashboard.`} />
    </main>
  );
}

const root = document.getElementById('app')!;
root.textContent = '';
render(<ApprovalOrApp />, root);
