/**
 * The MCP sessions an isolate keeps for tool calls, one per server URL and headers: a call runs in
 * the kept session (no `initialize`, no `DELETE`) instead of opening and ending one of its own — two
 * round trips fewer per call on a server that keeps sessions. Only the session's id and protocol
 * version are kept (strings): no client, stream or socket outlives the call that made it, as the
 * Workers runtime requires of I/O across requests.
 *
 * A kept session is used for {@link MCP_SESSION_REUSE_MS}, then retired: the call that finds it so
 * opens a new one and ends the old (`DELETE`), so a server holds at most about one session per isolate
 * and server, and never one older than that plus its own expiry. A session the server forgot is
 * dropped by the call that found out (client.ts). One whose server's listing is read again
 * ({@link retireSessions}: a refresh, or a call refused as "no such tool") is retired too: a server
 * may give each session the tools it had when the session began.
 */

/** A session kept for reuse; `users`: calls running in it now (it is ended only once none is). */
export type KeptSession = {
  id: string;
  protocolVersion: string | undefined;
  since: number;
  users: number;
  url: string;
};

/** How long one kept session is used for calls before a new one replaces it. */
export const MCP_SESSION_REUSE_MS = 5 * 60_000;
/** Servers (and header sets) an isolate keeps a session for at most; past it the oldest is retired. */
const MAX_KEPT = 64;

const kept = new Map<string, KeptSession>();
/** Sessions retired and not yet ended, by key: whichever call of that key comes next ends them. */
const retired = new Map<string, KeptSession[]>();

/** What one call does with the sessions kept for its server and headers. */
export type SessionReuse = {
  /** The kept session to use, or null (none, or it was retired for its age: open a new one). */
  take(): KeptSession | null;
  /** The call that took `s` is done with it. */
  release(s: KeptSession): void;
  /**
   * After the call: whether session `id` is kept now (the one it took, still kept; or a new one, when
   * none is). False: end it.
   */
  offer(id: string, protocolVersion: string | undefined, took: KeptSession | null): boolean;
  /** The server said it does not know session `id`: it is kept no longer. */
  forget(id: string): void;
  /** Retired sessions of this key no call runs in, to end now (each handed out once). */
  retired(): KeptSession[];
};

/**
 * The kept sessions of one server URL and header set, at `now` (epoch ms).
 * @example const s = sessionReuse(url, headers); const k = s.take(); … s.offer(id, version, k);
 */
export function sessionReuse(
  url: string,
  headers: Record<string, string>,
  now: () => number = Date.now,
): SessionReuse {
  const key = serverKey(url, headers);
  return {
    take() {
      const s = kept.get(key);
      if (s === undefined) return null;
      if (now() - s.since >= MCP_SESSION_REUSE_MS) {
        retire(key, s);
        return null;
      }
      s.users++;
      return s;
    },
    release(s) {
      s.users = Math.max(0, s.users - 1);
    },
    offer(id, protocolVersion, took) {
      const s = kept.get(key);
      if (took !== null && took.id === id) return s?.id === id;
      if (s !== undefined) return false;
      if (kept.size >= MAX_KEPT) {
        const [oldestKey, oldest] = kept.entries().next().value as [string, KeptSession];
        retire(oldestKey, oldest);
      }
      kept.set(key, { id, protocolVersion, since: now(), users: 0, url });
      return true;
    },
    forget(id) {
      if (kept.get(key)?.id === id) kept.delete(key);
    },
    retired() {
      const all = retired.get(key) ?? [];
      const idle = all.filter((r) => r.users === 0);
      const busy = all.filter((r) => r.users > 0);
      if (busy.length > 0) retired.set(key, busy);
      else retired.delete(key);
      return idle;
    },
  };
}

/**
 * The key of a server URL and header set: what an isolate keeps per server for calls is kept by it.
 * @example serverKey(url, { A: '1', B: '2' }) === serverKey(url, { B: '2', A: '1' }); // true
 */
export function serverKey(url: string, headers: Record<string, string>): string {
  // Headers sorted: the same credentials are the same key. They stay in this isolate's memory only.
  return JSON.stringify([url, Object.entries(headers).sort(([a], [b]) => (a < b ? -1 : 1))]);
}

/** Stops using `s` for calls; the next call of `key` (once no call runs in it) ends it. */
function retire(key: string, s: KeptSession): void {
  kept.delete(key);
  retired.set(key, [...(retired.get(key) ?? []), s]);
}

/**
 * Retires the sessions this isolate keeps for the server at `url` (any headers): the next call opens
 * a new one and ends them. For when its tools are listed again — they may have changed, and a session
 * may keep the tools it began with.
 * @example retireSessions(server.url); // after a refreshed listing
 */
export function retireSessions(url: string): void {
  for (const [key, s] of [...kept]) if (s.url === url) retire(key, s);
}
