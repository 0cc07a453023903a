/**
 * What an isolate remembers of MCP servers that keep no sessions — stateless Streamable HTTP, whose
 * `initialize` is answered without an `Mcp-Session-Id` (the SDK's transport without a session id
 * generator; Cloudflare's `createMcpHandler`) — per server URL and header set, the key kept sessions
 * have (session-reuse.ts): the protocol version its handshake negotiated, and since when. A tool call
 * to such a server skips the handshake (`initialize`, `notifications/initialized` and the GET of a
 * standalone stream: three requests) and is sent alone with `MCP-Protocol-Version`, as a connected
 * SDK client sends every request after its first.
 *
 * A server that refuses such a call as uninitialized (before running it) is remembered as wanting the
 * handshake before each call, so it is not refused each time. Either is remembered for
 * {@link MCP_SESSION_REUSE_MS}, as a session is kept, and forgotten when the server's tools are listed
 * again ({@link forgetStatelessServers}: it may have been redeployed) or it gives a session after all.
 * Only strings and a time are kept: nothing of a request outlives it.
 */
import { MCP_SESSION_REUSE_MS, serverKey } from './session-reuse';

/** What is remembered of one server: calls go without a handshake (`bare`), or each has one. */
type Remembered = { url: string; since: number } & (
  { bare: true; protocolVersion: string } | { bare: false }
);

/** Servers (and header sets) remembered at most; past it the oldest is forgotten. */
const MAX_REMEMBERED = 64;

const remembered = new Map<string, Remembered>();

/** What one call knows and learns of its server and headers. */
export type StatelessServer = {
  /**
   * The protocol version to send a call with and no handshake; null when that is not known to work
   * (nothing remembered, or the server wants the handshake).
   */
  bareVersion(): string | null;
  /** A handshake was answered without a session id, in `protocolVersion`. */
  keepsNoSessions(protocolVersion: string): void;
  /** A call sent without a handshake was refused before it ran: from now on each call has one. */
  wantsHandshake(): void;
  /** The server gave a session id: it keeps sessions (session-reuse.ts), nothing is remembered here. */
  forget(): void;
};

/**
 * What is remembered of the server at `url` with these headers, at `now` (epoch ms).
 * @example const s = statelessServer(url, headers); const version = s.bareVersion(); // null: handshake
 */
export function statelessServer(
  url: string,
  headers: Record<string, string>,
  now: () => number = Date.now,
): StatelessServer {
  const key = serverKey(url, headers);
  const current = (): Remembered | undefined => {
    const r = remembered.get(key);
    if (r !== undefined && now() - r.since >= MCP_SESSION_REUSE_MS) {
      remembered.delete(key);
      return undefined;
    }
    return r;
  };
  const remember = (r: Remembered) => {
    remembered.delete(key);
    if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value as string);
    remembered.set(key, r);
  };
  return {
    bareVersion() {
      const r = current();
      return r?.bare ? r.protocolVersion : null;
    },
    keepsNoSessions(protocolVersion) {
      // A server known to refuse calls without one stays so: its handshakes are answered this way too.
      const r = current();
      if (r === undefined || r.bare) remember({ url, since: now(), bare: true, protocolVersion });
    },
    wantsHandshake() {
      remember({ url, since: now(), bare: false });
    },
    forget() {
      remembered.delete(key);
    },
  };
}

/**
 * Forgets what this isolate remembers of the server at `url` (any headers): for when its tools are
 * listed again — it may have changed how it answers since.
 * @example forgetStatelessServers(server.url); // after a refreshed listing
 */
export function forgetStatelessServers(url: string): void {
  for (const [key, r] of [...remembered]) if (r.url === url) remembered.delete(key);
}
