/**
 * Why a request got no answer, from its error's cause chain. A runtime's fetch says little itself
 * (Node's `fetch failed`, the SDK's `Connection error.`): the reason is in `cause` — the socket's
 * error with its `code` (`ECONNREFUSED`, `ENOTFOUND`, `ETIMEDOUT`, a TLS one such as
 * `UNABLE_TO_VERIFY_LEAF_SIGNATURE` or `CERT_HAS_EXPIRED`), or an `AggregateError` with one per
 * address tried. Any URL in it is cut to its origin and path (shown-url.ts): a user and password or
 * a query may carry a credential.
 */
import { shownUrls } from './shown-url';

/** Messages that say only that something failed, never why. */
const SAYS_NOTHING = /^(fetch failed|connection error\.?|network error|failed to fetch|terminated)$/i;
/** OpenSSL's error line: `<hex>:error:<hex>:<library>:<function>:<reason>:<file>:<line>:`. */
const OPENSSL_LINE = /^[0-9A-F]+:error:[0-9A-F]+:([^:]+):[^:]*:([^:]+):/;

/** An OpenSSL error line as its library and reason (`SSL routines: wrong version number`); other text as it is. */
function openSslReason(message: string): string {
  const m = OPENSSL_LINE.exec(message);
  return m ? `${m[1]}: ${m[2]}` : message;
}

/** How deep the cause chain is followed (a loop of causes must end). */
const MAX_DEPTH = 5;

/**
 * The reasons in `err`'s cause chain, one line, or '' when none says more than that it failed.
 * @example
 * connectionCause(new TypeError('fetch failed', { cause: Object.assign(new Error('getaddrinfo ENOTFOUND llm.invalid'), { code: 'ENOTFOUND' }) }))
 * // 'getaddrinfo ENOTFOUND llm.invalid'
 */
export function connectionCause(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; depth < MAX_DEPTH && e !== null && typeof e === 'object'; depth++) {
    const first = e instanceof AggregateError && e.errors.length > 0 ? (e.errors[0] as unknown) : e;
    const { message, code } = first as { message?: unknown; code?: unknown };
    const said = typeof message === 'string' ? openSslReason(message.trim()) : '';
    if (said && !SAYS_NOTHING.test(said) && !parts.some((p) => p.includes(said))) parts.push(said);
    const named = typeof code === 'string' || typeof code === 'number' ? String(code) : '';
    if (named && !parts.some((p) => p.includes(named))) parts.push(`(${named})`);
    e = (e as { cause?: unknown }).cause;
  }
  return shownUrls(parts.join(' ').replace(/\s+/g, ' ')).trim();
}
