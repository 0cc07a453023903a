/**
 * Browser code: start-up — the API token field, the `#run=<id>` address (so a reload or a shared
 * link reopens the run), and every panel's first load.
 */
export const MAIN_JS = String.raw`
function runFromHash() {
  const m = /^#run=(.+)$/.exec(location.hash);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch (e) {
    return null;
  }
}

function renderTokenState() {
  const set = Boolean(getToken());
  $('token-note').hidden = !set;
  setText($('token-state'), set ? 'Token saved in this browser.' : 'No token: requests are sent without Authorization.');
  $('token-clear').disabled = !set;
}

/** After the token changes: reload everything with it, and switch the live log's transport. */
function tokenChanged() {
  renderTokenState();
  firstRunsPage();
  void loadTools();
  const runId = view.runId;
  if (runId) {
    openRun(null);
    openRun(runId);
  }
}

function initToken() {
  $('api-token').value = getToken();
  renderTokenState();
  $('token-form').addEventListener('submit', (e) => {
    e.preventDefault();
    setToken($('api-token').value.trim());
    tokenChanged();
  });
  $('token-clear').addEventListener('click', () => {
    $('api-token').value = '';
    setToken('');
    tokenChanged();
  });
}

initToken();
initRunsList();
initRunView();
initLiveEvents();
initNewRun();
void loadTools();
window.addEventListener('hashchange', () => openRun(runFromHash()));
openRun(runFromHash());
`;
