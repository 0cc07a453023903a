/**
 * The subprotocol a run's WebSocket answers with. A client that offers subprotocols must get one of
 * them back, or it fails the connection (RFC 6455 §4.1) — silently, in a browser. So `edgeplan` is
 * answered whenever it is offered (with a bearer subprotocol or without: the token may have come as
 * a header, or not be needed), and an offer without it is refused before the upgrade, saying what
 * to offer, instead of an upgrade the client has to drop.
 */
import { WS_PROTOCOL } from '../client/ws-protocol';
import { clipText } from '../text-cut';

export type SubprotocolChoice = { ok: true; protocol: string | null } | { ok: false; message: string };

/** The longest offer a refusal repeats. */
const ECHO_CHARS = 120;

/**
 * What to answer a `Sec-WebSocket-Protocol` offer with: null when none was offered.
 * @example chooseSubprotocol('edgeplan, edgeplan.bearer.dA') // { ok: true, protocol: 'edgeplan' }
 */
export function chooseSubprotocol(header: string | undefined): SubprotocolChoice {
  if (header === undefined || header.trim() === '') return { ok: true, protocol: null };
  const offered = header.split(',').map((p) => p.trim());
  if (offered.includes(WS_PROTOCOL)) return { ok: true, protocol: WS_PROTOCOL };
  // A bearer subprotocol may carry a token: the refusal names only the kinds offered, not the values.
  const shown = offered.map((p) => (p.startsWith(`${WS_PROTOCOL}.bearer.`) ? `${WS_PROTOCOL}.bearer.…` : p));
  const got = shown.join(', ');
  return {
    ok: false,
    message:
      `This WebSocket speaks the subprotocol "${WS_PROTOCOL}": offer it (with "${WS_PROTOCOL}.bearer.<base64url token>" ` +
      `beside it to carry the API token from a browser), or offer none; got ` +
      `"${clipText(got, ECHO_CHARS)}"`,
  };
}
