/**
 * The dashboard (src/ui, bundled by scripts/build-dashboard.mjs into the Worker's assets): runs,
 * each run live, new runs, and the approval link's page when the server hands one over.
 */
import { render } from 'preact';
import { useState } from 'preact/hooks';
import { getToken, setToken } from './api';
import { ApprovalPage, type ApprovalData } from './pages/approval-page';
import { NewRunPage } from './pages/new-run-page';
import { RunPage } from './pages/run-page';
import { RunsPage } from './pages/runs-page';
import { href, useRoute } from './router';

function TokenField() {
  const [token, set] = useState(getToken());
  return (
    <label class="token">
      API token{' '}
      <input
        type="password"
        autocomplete="off"
        placeholder="none (ALLOW_ANONYMOUS)"
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

const data = document.getElementById('edgeplan-data')?.textContent;
const approval = data ? (JSON.parse(data) as { approval?: ApprovalData }).approval : undefined;
const root = document.getElementById('app')!;
root.textContent = '';
render(approval ? <ApprovalPage data={approval} /> : <App />, root);
