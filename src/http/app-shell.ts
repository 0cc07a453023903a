/**
 * The HTML the dashboard runs in: a shell that loads the app (`/app/app.js`, `/app/app.css`, built
 * from src/ui into the Worker's static assets) and hands it what the server knows — for the approval
 * link's page, the plan to decide on. Data goes in a JSON script element, escaped so nothing in it can
 * close the element.
 */

/** JSON that is safe inside a `<script>` element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll('<', '\\u003c')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
}

const escapeHtml = (s: string) =>
  s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/**
 * The page: the app's assets and, optionally, data for it (`window` reads `#edgeplan-data`); `auth:
 * "token"` tells the dashboard every API call needs an API token (src/http/dashboard-auth.ts).
 */
export function appShell(title: string, data?: unknown, { auth }: { auth?: 'token' | null } = {}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
${auth ? `<meta name="edgeplan-auth" content="${auth}">\n` : ''}<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/app/app.css">
</head>
<body>
<div id="app"><noscript>The dashboard needs JavaScript. The API is at <a href="/docs">/docs</a>.</noscript></div>
${data === undefined ? '' : `<script type="application/json" id="edgeplan-data">${scriptJson(data)}</script>\n`}<script type="module" src="/app/app.js"></script>
</body>
</html>
`;
}

/** A page that says what is wrong, for a person who followed a link. */
export function messagePage(title: string, message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><link rel="stylesheet" href="/app/app.css"></head>
<body><main class="message"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main></body></html>
`;
}

/**
 * Headers of a page served from this Worker: scripts from this origin only, no framing, no referrer;
 * `extra` adds CSP directives (the API reference's fonts).
 */
export function pageHeaders(extra: string[] = []): Record<string, string> {
  return {
    'Content-Security-Policy': [
      "default-src 'none'",
      "script-src 'self'",
      // Styles the app and Swagger UI set at run time.
      "style-src 'self' 'unsafe-inline'",
      "connect-src 'self'",
      "img-src 'self' data:",
      ...extra,
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-cache',
  };
}

/** Headers of every dashboard page. */
export const APP_HEADERS = pageHeaders();

/**
 * Headers of the approval link's page, which holds the link's token and the plan: stored by no cache
 * (`no-cache` lets a browser's disk cache or a proxy keep a copy, revalidated before use).
 */
export const APPROVAL_PAGE_HEADERS = { ...APP_HEADERS, 'Cache-Control': 'no-store' };
