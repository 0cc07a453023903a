/**
 * One MCP session with a configured server over Streamable HTTP (the SDK's client), and how its
 * failures become step errors: a server that cannot be reached, or answers 5xx / 429, is a retryable
 * `mcp_unreachable` (retried after the wait its `Retry-After` asks, if it asks); a refusal (JSON-RPC
 * error, other 4xx) is `mcp_error`, not retried; an answer the protocol's schema refuses is `mcp_bad_response` and one over `MAX_MCP_RESPONSE_BYTES` is
 * `mcp_response_too_large` (limited-fetch.ts), neither retried (the call may have had its effect); a server that forgets
 * the session it just opened is asked again in a new one, then is a retryable `mcp_session_lost`. A
 * listing's session is ended (`DELETE`) when its work is done; tool calls share one session per server
 * (and credentials) per isolate instead ({@link withMcpClient}'s `reuse`, session-reuse.ts), so a
 * call costs no handshake and no `DELETE`; to a server that keeps no sessions, a call is sent without
 * a handshake once one has shown it keeps none (stateless-servers.ts). No message carries the
 * configured headers' values: a server that echoes the token it was sent is redacted.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from './config';
import type { McpConnectOptions } from './connect-options';
import { zodJsonSchemaValidator } from './json-schema';
import { ToolError } from '../errors';
import { redactSecrets } from '../planner/redact';
import { limitedFetch } from './limited-fetch';
import { sessionReuse, type KeptSession, type SessionReuse } from './session-reuse';
import { statelessServer, type StatelessServer } from './stateless-servers';
import { headerSecrets, isSchemaRefusal, toMcpToolError } from './tool-errors';

/** How the client introduces itself to servers. */
const CLIENT_INFO = { name: 'edgeplan', version: '0.1.0' };

/**
 * Sessions one call may open: a server that forgets the session it just opened (it restarted, or
 * another of its instances answered) is asked again in a new one, once.
 */
export const MAX_MCP_SESSIONS = 2;

/** How the SDK's protocol reports an answer whose id no pending request has (src/shared/protocol.ts). */
const UNKNOWN_ID = 'Received a response for an unknown message ID';

/** How long closing a session (`DELETE`) may take before the call goes on without waiting. */
const END_SESSION_MS = 1_000;

/**
 * Runs `use` with a connected client, then ends the session whatever happens; errors come out as
 * {@link ToolError}s (see the module comment). A server that answers a request naming the session it
 * gave "no such session" (404, as the spec says; or 400 saying so, as the SDK's example servers do)
 * did not run it: `use` runs again in a new session, up to {@link MAX_MCP_SESSIONS}, then fails as a
 * retryable `mcp_session_lost`.
 *
 * `reuse: true` (tool calls): `use` runs in the session this isolate keeps for the server and these
 * headers, if one is kept and not older than `MCP_SESSION_REUSE_MS` (no `initialize`), and the
 * session is kept afterwards instead of ended. A kept session the server has forgotten (it restarted,
 * or expired it) is dropped and `use` runs in a new one — the request was not run — without counting
 * toward {@link MAX_MCP_SESSIONS}: those count sessions opened by this call. A session that outlived
 * its reuse is ended (`DELETE`) by the call that replaces it. On a server whose handshake gave no
 * session (it keeps none), `use` runs without a handshake, the request alone with the negotiated
 * `MCP-Protocol-Version`; a server that refuses that before running it ({@link refusedUnready}) is
 * remembered as wanting the handshake and `use` runs again after one — only then: a call whose
 * answer was lost (a timeout, a dropped connection) may have run, and is not sent again.
 * @example
 * const tools = await withMcpClient(server, { headers: {} }, (client) => client.listTools());
 */
export async function withMcpClient<T>(
  server: McpServerConfig,
  opts: McpConnectOptions,
  use: (client: Client) => Promise<T>,
  { reuse = false }: { reuse?: boolean } = {},
): Promise<T> {
  const secrets = headerSecrets(opts.headers);
  const kept = reuse ? sessionReuse(server.url, opts.headers) : null;
  const stateless = reuse ? statelessServer(server.url, opts.headers) : null;
  // A kept session is tried once: after it, the call's own sessions are counted (a bound however
  // other calls keep offering sessions the server forgets). A call without a handshake, likewise.
  let triedKept = false;
  let triedBare = false;
  for (let session = 1; ; session++) {
    const shared = triedKept ? null : (kept?.take() ?? null);
    if (shared) triedKept = true;
    const bare = shared !== null || triedBare ? null : (stateless?.bareVersion() ?? null);
    if (bare !== null) triedBare = true;
    try {
      return await inSession(server, opts, use, { kept, shared, stateless, bare });
    } catch (err) {
      if (err instanceof HandshakeWanted) {
        stateless?.wantsHandshake();
        session--; // no session was opened
        continue;
      }
      if (!(err instanceof SessionLost)) throw toMcpToolError(server, err, secrets);
      // A kept session forgotten since: this call has not opened one yet.
      if (shared !== null) session--;
      else if (session >= MAX_MCP_SESSIONS)
        throw new ToolError(
          'mcp_session_lost',
          redactSecrets(
            `MCP server "${server.name}" forgot the session it had just opened, ${session} times in a row (${err.message}): it restarts, or its instances do not share sessions (route each client to one instance, or run the server stateless); the request was not run`,
            secrets,
          ),
          { retryable: true },
        );
    }
  }
}

/** A server's "no such session" for the session it gave: nothing was run, a new session may be tried. */
class SessionLost extends Error {
  override name = 'SessionLost';
}

/** A call sent without a handshake, refused before it ran: it may be sent again after one. */
class HandshakeWanted extends Error {
  override name = 'HandshakeWanted';
}

/** What one attempt of a call knows of its server (see {@link inSession}). */
type Known = {
  /** The sessions kept for calls (reuse), or null. */
  kept: SessionReuse | null;
  /** The kept session to run in (no handshake), or null. */
  shared: KeptSession | null;
  /** What is remembered of servers that keep no sessions (reuse), or null. */
  stateless: StatelessServer | null;
  /** The protocol version to send the request in without a handshake (a server keeping none), or null. */
  bare: string | null;
};

/**
 * `use` in one session: `shared`, a session kept from an earlier call (no handshake), none at all
 * (`bare`: a server that keeps none, no handshake), or a new one. With `kept` (reuse), the session is
 * offered to it afterwards instead of ended, and a session it retired is ended here; with `stateless`,
 * a handshake answered without a session is remembered.
 */
async function inSession<T>(
  server: McpServerConfig,
  opts: McpConnectOptions,
  use: (client: Client) => Promise<T>,
  { kept, shared, stateless, bare }: Known,
): Promise<T> {
  const limited = limitedFetch(server, opts.fetch ?? ((input, init) => fetch(input, init)));
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: opts.headers },
    fetch: limited.fetch,
    ...(shared ? { sessionId: shared.id } : {}),
  });
  // Sent on every request after the handshake (the spec's MCP-Protocol-Version), which a kept session
  // and a call without one skip.
  const version = shared?.protocolVersion ?? bare;
  if (version) transport.setProtocolVersion(version);
  let lost = false;
  let refused = false;
  const client = new Client(CLIENT_INFO, { jsonSchemaValidator: zodJsonSchemaValidator });
  // An event the SDK cannot read only reaches onerror, and the request it answered would wait for
  // the step's deadline: it fails the call at once instead.
  let unreadable!: (err: Error) => void;
  const unread = new Promise<never>((_, reject) => (unreadable = reject));
  unread.catch(() => {}); // raced only while the session is open
  client.onerror = (err) => {
    if (err instanceof SyntaxError || isSchemaRefusal(err)) unreadable(err);
    // An answer to a request this client never sent (each call has a client of its own): the one it
    // did send will not be answered either. Not retried: the server may have run it.
    else if (err.message.startsWith(UNKNOWN_ID)) {
      const message = `MCP server "${server.name}" answered a request it was not sent (a JSON-RPC id no request of this call carries); not retried: a call may have had its effect`;
      unreadable(new ToolError('mcp_bad_response', message, { retryable: false }));
    }
  };
  try {
    // An answer over the limit fails the call at once, whatever the SDK makes of its cut-off stream.
    await Promise.race([
      bare !== null
        ? connectWithoutHandshake(client, transport)
        : client.connect(transport, opts.signal ? { signal: opts.signal } : undefined),
      limited.overflow,
      unread,
    ]);
    // The handshake gave no session: the server keeps none, and the next calls need no handshake.
    if (bare === null && shared === null && transport.sessionId === undefined && transport.protocolVersion)
      stateless?.keepsNoSessions(transport.protocolVersion);
    return await Promise.race([use(client), limited.overflow, unread]);
  } catch (err) {
    if (err instanceof HandshakeWanted) {
      refused = true;
      throw err;
    }
    if (bare !== null && refusedUnready(err)) {
      refused = true;
      throw new HandshakeWanted(err.message.slice(0, 200));
    }
    if (transport.sessionId !== undefined && isUnknownSession(err)) {
      lost = true;
      if (shared) kept?.forget(shared.id);
      throw new SessionLost(`${err.code}: ${err.message.slice(0, 200)}`);
    }
    // The SDK reports an abort as a timeout of its own (-32001 with the reason's text): it is the
    // abort, whatever the reason said, and not a server's error (toMcpToolError).
    if (opts.signal?.aborted && err instanceof McpError) throw opts.signal.reason;
    // A busy server's refusal, with the wait it asked for (the SDK's error has no headers).
    if (err instanceof StreamableHTTPError && limited.askedWaitMs() !== undefined)
      throw toMcpToolError(server, err, headerSecrets(opts.headers), limited.askedWaitMs());
    throw err;
  } finally {
    const id = transport.sessionId;
    // A server that gave a session keeps sessions (now): nothing is remembered of it as keeping none.
    if (id !== undefined) stateless?.forget();
    // Kept for the next call, or — a server keeping sessions keeps each until told it is over, and
    // one per call would pile up — ended, as is a kept one that outlived its reuse (or one given with
    // a refusal).
    if (shared) kept?.release(shared);
    const keep =
      !lost &&
      !refused &&
      id !== undefined &&
      kept !== null &&
      kept.offer(id, transport.protocolVersion, shared);
    const retired = kept?.retired() ?? [];
    await Promise.all(
      [
        ...(keep || lost ? [] : [transport.terminateSession()]),
        ...retired.map((r) => endSession(server, opts, r.id, limited.fetch)),
      ].map(bounded),
    );
    await client.close().catch(() => undefined);
  }
}

/**
 * Connects `client` without the handshake, for a server known to need none: `Client.connect` sends
 * `initialize` unless the transport has a session id, and `Protocol.connect`, which it calls first,
 * only wires the transport. The client then knows nothing of the server's capabilities, as in a kept
 * session: a tool call needs none (the SDK checks them only with `enforceStrictCapabilities`).
 */
async function connectWithoutHandshake(client: Client, transport: Transport): Promise<void> {
  try {
    await Protocol.prototype.connect.call(client, transport);
  } catch (err) {
    // Nothing was sent yet (wiring a transport sends nothing): an SDK built otherwise than 1.32 (whose
    // semver range a user's install may take) costs the handshake, never the call.
    throw new HandshakeWanted(`the SDK could not connect without a handshake: ${String(err).slice(0, 200)}`);
  }
}

/**
 * A server's refusal of a request sent without a handshake, before running it: 404 (nothing served
 * it), a 400 about initialization, sessions or the protocol version (the SDK's `Server not
 * initialized`, `Mcp-Session-Id header is required`, `Unsupported protocol version`), or a JSON-RPC
 * error that is just "Server not initialized". Not a tool's own error, which could have had effects.
 */
function refusedUnready(err: unknown): err is Error {
  if (err instanceof StreamableHTTPError)
    return (
      err.code === 404 || (err.code === 400 && /initiali[sz]|session|protocol.?version/i.test(err.message))
    );
  if (err instanceof McpError)
    return /^(bad request: )?server not initiali[sz]ed\.?$/i.test(
      err.message.replace(/^MCP error -?\d+: /, ''),
    );
  return false;
}

/** Ends a session this call did not use (a kept one retired), as `terminateSession` does. */
function endSession(
  server: McpServerConfig,
  opts: McpConnectOptions,
  sessionId: string,
  fetcher: typeof fetch,
): Promise<void> {
  const t = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: opts.headers },
    fetch: fetcher,
    sessionId,
  });
  return t.terminateSession();
}

/** `work`, waited for no longer than {@link END_SESSION_MS}, its failure ignored (the server expires it). */
async function bounded(work: Promise<void>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    work.catch(() => undefined),
    new Promise((resolve) => (timer = setTimeout(resolve, END_SESSION_MS))),
  ]);
  clearTimeout(timer);
}

/** "No such session": 404 (the spec's), or a 400 that says so (the SDK's example servers'). */
function isUnknownSession(err: unknown): err is StreamableHTTPError & { code: number } {
  if (!(err instanceof StreamableHTTPError)) return false;
  return err.code === 404 || (err.code === 400 && /session/i.test(err.message));
}
