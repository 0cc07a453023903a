/** The dashboard's way to the API: `edgeplan/client` on this origin, with the token the user entered. */
import { createClient, EdgeplanApiError, type EdgeplanClient } from '../client';

const TOKEN_KEY = 'edgeplan.token';

export function getToken(): string {
  try {
    return localStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    return '';
  }
}

export function setToken(token: string): void {
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  } catch {
    // storage refused (private mode): the token lasts this page only
  }
}

/** How long the dashboard's client waits in all to send a refused request again (`Retry-After`). */
export const UI_RETRY_WAIT_MS = 5_000;

/**
 * The server said every API call needs an API token (`<meta name="edgeplan-auth" content="token">`)
 * and none is entered: a call would only be refused, so none is sent.
 */
export function tokenNeeded(): boolean {
  const auth = document.querySelector('meta[name="edgeplan-auth"]')?.getAttribute('content');
  return auth === 'token' && !getToken();
}

/** What a call not sent for want of a token answers: the API's own refusal, without the request. */
const NO_TOKEN_ENTERED = JSON.stringify({
  error: { code: 'unauthorized', message: 'no API token is entered in this browser' },
});

/** A client with the current token (or a link's, for the approval page: no API token). */
export function api(options: { anonymous?: boolean } = {}): EdgeplanClient {
  const token = options.anonymous ? '' : getToken();
  // A first visit to a deployment that needs a token: told so at once, with no request the browser
  // would log as a failed (401) load — a red console error on the normal first visit.
  const unsent =
    !options.anonymous && tokenNeeded()
      ? {
          fetch: () =>
            Promise.resolve(
              new Response(NO_TOKEN_ENTERED, {
                status: 401,
                headers: { 'content-type': 'application/json' },
              }),
            ),
        }
      : {};
  // A person waits behind a click: the client sends a refused request again after a short wait
  // only; a longer one (a rate limit's minute) is said at once, with what the server answered.
  return createClient({
    baseUrl: location.origin,
    maxRetryWaitMs: UI_RETRY_WAIT_MS,
    ...(token ? { token } : {}),
    ...unsent,
  });
}

/**
 * What to tell a person about a failure. A refused token is the person's to fix in the page's "API
 * token" field, which the API's own message (written for an HTTP client: "send Authorization: Bearer
 * …") does not say; a server with no token set (its message says so) is the operator's to fix.
 */
export function errorText(err: unknown): string {
  if (err instanceof EdgeplanApiError && err.status === 401 && !err.message.startsWith('This deployment')) {
    const what = getToken() ? 'does not accept the API token entered' : 'needs an API token';
    return `${err.code}: this server ${what}: enter its API_TOKEN in "API token" at the top of the page (${err.message})`;
  }
  if (err instanceof EdgeplanApiError) return `${err.code}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

/** The findings an `invalid_plan` refusal carries. */
export function findingsOf(
  err: unknown,
): { code: string; message: string; step_id?: string; line?: number }[] {
  if (!(err instanceof EdgeplanApiError)) return [];
  const errors = (err.details as { errors?: unknown } | undefined)?.errors;
  return Array.isArray(errors) ? (errors as { code: string; message: string }[]) : [];
}

/** A refusal's headline: with findings (listed beside it, one a line), only how many. */
export function refusalText(err: unknown): string {
  const n = findingsOf(err).length;
  if (n === 0 || !(err instanceof EdgeplanApiError)) return errorText(err);
  return `${err.code}: ${n === 1 ? 'one finding' : `${n} findings`}`;
}

let signedIn: Promise<string | null> | undefined;

/**
 * Who Cloudflare Access signed this browser in as, when the Worker is behind Access (`GET /v1/me`
 * asked without the API token answers `via: "access"`); null otherwise — no Access, a token needed,
 * or an open API. Asked once per page.
 */
export function signedInAs(): Promise<string | null> {
  // Access is not configured where the page is told a token is needed: nobody to ask about.
  if (tokenNeeded()) return Promise.resolve(null);
  signedIn ??= api({ anonymous: true })
    .me()
    .then((me) => (me.via === 'access' ? me.authenticated_as : null))
    .catch(() => null);
  return signedIn;
}
