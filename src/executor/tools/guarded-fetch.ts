/**
 * A fetch that only goes where the address policy allows: redirects are followed by hand (at most
 * {@link MAX_REDIRECTS}) so every hop's host is checked before anything is sent to it.
 */
import { ToolError } from '../../errors';
import { checkHost, type Allowlist } from './address-policy';
import { textStart } from '../../text-cut';

/** Redirects followed before giving up with `too_many_redirects`. */
export const MAX_REDIRECTS = 5;

/** The request as first sent; redirects may turn it into a GET without a body. */
export type GuardedRequest = { method: string; headers: Headers; body: string | undefined };

/** The final response, with the URL and method that produced it. */
export type GuardedResponse = { response: Response; url: URL; method: string };

const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/**
 * Sends `req` to `target`, following redirects the way browsers do (303, and 301/302 after a POST,
 * continue as a GET without the body; credentials are dropped when the origin changes). Throws
 * ToolErrors: `invalid_url`, `host_not_allowed`, `address_refused`, `name_refused`,
 * `too_many_redirects`, and a retryable `http_error` when the network fails. An abort rethrows the
 * fetch's own error.
 * @example
 * const { response } = await guardedFetch('https://api.example.com/x',
 *   { method: 'GET', headers: new Headers(), body: undefined }, { allowlist, fetch, signal });
 */
export async function guardedFetch(
  target: string,
  req: GuardedRequest,
  opts: { allowlist: Allowlist; fetch: typeof fetch; signal: AbortSignal },
): Promise<GuardedResponse> {
  // Called as a plain function: `opts.fetch(…)` would make `opts` its `this`, and the Workers
  // runtime's global fetch throws "Illegal invocation" for any `this` but the global one.
  const send = opts.fetch;
  let url = parseTarget(target);
  let { method, body } = req;
  const headers = new Headers(req.headers);
  for (let hop = 0; ; hop++) {
    assertAllowed(url, opts.allowlist);
    let response: Response;
    try {
      response = await send(url.href, {
        method,
        headers,
        body,
        redirect: 'manual',
        signal: opts.signal,
      });
    } catch (err) {
      if (opts.signal.aborted) throw err;
      const why = err instanceof Error ? err.message : String(err);
      throw new ToolError('http_error', `${method} ${redact(url)} failed: ${why}`);
    }

    const location = response.headers.get('location');
    const isRedirect = response.status >= 300 && response.status < 400 && response.status !== 304;
    if (!isRedirect || !location) return { response, url, method };

    void response.body?.cancel().catch(() => {});
    if (hop >= MAX_REDIRECTS) {
      const message = `${redact(target)} redirected more than ${MAX_REDIRECTS} times`;
      throw new ToolError('too_many_redirects', message, { retryable: false });
    }
    const next = parseTarget(location, url);
    const s = response.status;
    if (s === 303 ? method !== 'HEAD' : (s === 301 || s === 302) && method === 'POST') {
      method = 'GET';
      body = undefined;
      headers.delete('content-type');
    }
    if (next.origin !== url.origin) for (const h of CREDENTIAL_HEADERS) headers.delete(h);
    url = next;
  }
}

/** Parses an http(s) URL without credentials, or throws a non-retryable `invalid_url`. */
export function parseTarget(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new ToolError('invalid_url', `Not a valid URL: ${textStart(raw, 200)}`, { retryable: false });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    const message = `Only http and https URLs are allowed, got ${url.protocol}`;
    throw new ToolError('invalid_url', message, { retryable: false });
  }
  if (url.username || url.password) {
    const message = 'URLs with credentials are not allowed; send an Authorization header instead';
    throw new ToolError('invalid_url', message, { retryable: false });
  }
  return url;
}

function assertAllowed(url: URL, allowlist: Allowlist): void {
  const decision = checkHost(url.hostname, allowlist);
  if (!decision.allowed) {
    throw new ToolError(decision.code, `Refused ${redact(url)}: ${decision.reason}`, { retryable: false });
  }
}

/** A URL for messages, which end up in the event log: no query or fragment (they may hold keys). */
export function redact(url: URL | string): string {
  try {
    const u = typeof url === 'string' ? new URL(url) : url;
    return `${u.origin}${u.pathname}`;
  } catch {
    return textStart(String(url), 200);
  }
}
