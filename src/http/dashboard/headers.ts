/**
 * The dashboard's response headers. The Content-Security-Policy allows only the page's own inline
 * script and stylesheet, by SHA-256 hash (no nonce: the page is static, so the hashes are too), and
 * network access only to this origin — `connect-src 'self'`, which covers the same-host WebSocket.
 */
import { DASHBOARD_SCRIPT, DASHBOARD_STYLE } from './page';

/** `'sha256-<base64>'` of a script or stylesheet, as CSP wants it. */
export async function cspHash(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  let binary = '';
  for (const byte of new Uint8Array(digest)) binary += String.fromCharCode(byte);
  return `'sha256-${btoa(binary)}'`;
}

/** The policy for a page with exactly this script and stylesheet. */
export async function contentSecurityPolicy(script: string, style: string): Promise<string> {
  const [scriptHash, styleHash] = await Promise.all([cspHash(script), cspHash(style)]);
  return [
    "default-src 'none'",
    `script-src ${scriptHash}`,
    `style-src ${styleHash}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

// Hashed on the first request, not at module load: the Workers runtime allows no crypto at global scope.
let headers: Promise<Record<string, string>> | undefined;

/**
 * The headers `GET /` answers with.
 * @example c.html(DASHBOARD_HTML, 200, await dashboardHeaders())
 */
export function dashboardHeaders(): Promise<Record<string, string>> {
  headers ??= contentSecurityPolicy(DASHBOARD_SCRIPT, DASHBOARD_STYLE).then((csp) => ({
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-cache',
  }));
  return headers;
}
