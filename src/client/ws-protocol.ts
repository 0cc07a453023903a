/**
 * The bearer token on a WebSocket from a browser, which cannot set an Authorization header: offered
 * as the subprotocols `edgeplan` and `edgeplan.bearer.<base64url(token)>`. The server accepts
 * `edgeplan` (browsers refuse an upgrade that accepts none of the offered protocols).
 * @example new WebSocket(url, wsProtocols(token))
 */

/** The subprotocol the server answers with. */
export const WS_PROTOCOL = 'edgeplan';
const BEARER = `${WS_PROTOCOL}.bearer.`;

const toBase64Url = (s: string) => {
  let binary = '';
  for (const byte of new TextEncoder().encode(s)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', '');
};

/** The subprotocols a client offers to carry `token`. */
export function wsProtocols(token: string): string[] {
  return [WS_PROTOCOL, `${BEARER}${toBase64Url(token)}`];
}

/** Whether a `Sec-WebSocket-Protocol` header offers a bearer subprotocol at all, well-formed or not. */
export function offersBearerProtocol(header: string | undefined): boolean {
  return header?.split(',').some((p) => p.trim().startsWith(BEARER)) ?? false;
}

/** The token a `Sec-WebSocket-Protocol` header carries, if any (undefined when none or malformed). */
export function tokenFromProtocols(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const offered = header.split(',').map((p) => p.trim());
  const encoded = offered.find((p) => p.startsWith(BEARER))?.slice(BEARER.length);
  if (!encoded || !/^[A-Za-z0-9_-]{1,1400}$/.test(encoded)) return undefined;
  try {
    const binary = atob(encoded.replaceAll('-', '+').replaceAll('_', '/'));
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(
      Uint8Array.from(binary, (ch) => ch.charCodeAt(0)),
    );
  } catch {
    return undefined;
  }
}
