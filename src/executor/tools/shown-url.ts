/**
 * A URL as edgeplan's messages show it: origin and path only. A user and password, a query or a
 * fragment may carry a credential (a gateway's `?key=`), and a message ends up in step errors,
 * events, logs and the dashboard.
 */

/**
 * `OPENAI_BASE_URL` (or any absolute URL) as errors show it; the path, which routes to a provider or
 * gateway, is kept.
 * @example shownUrl('https://u:p@gw.example/v1?key=k') // 'https://gw.example/v1'
 */
export function shownUrl(raw: string): string {
  if (!URL.canParse(raw)) return 'OPENAI_BASE_URL (not an absolute URL)';
  const url = new URL(raw);
  return `${url.origin}${url.pathname === '/' ? '' : url.pathname}`;
}

/**
 * `text` with every URL in it shown as {@link shownUrl} shows one (a URL that does not parse is left
 * out altogether).
 * @example shownUrls('connect to https://u:p@gw.example/v1?key=k failed') // 'connect to https://gw.example/v1 failed'
 */
export function shownUrls(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()]+/gi, (url) =>
    URL.canParse(url) ? shownUrl(url) : '(a URL)',
  );
}
