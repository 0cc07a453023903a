/**
 * Live progress over WebSocket with the hibernation API: a client gets the backlog after `?after=`,
 * then every new event, one JSON event per message. The backlog is sent synchronously before the
 * socket is handed back, so no event can slip between backlog and live.
 */
import type { RunEvent } from '../engine/events';
import type { SqlStore } from './sql-store';

export function acceptEventSocket(ctx: DurableObjectState, store: SqlStore, after: number): Response {
  const pair = new WebSocketPair();
  const [client, server] = [pair[0], pair[1]];
  ctx.acceptWebSocket(server);
  for (const e of store.eventStream(after)) server.send(JSON.stringify(e));
  return new Response(null, { status: 101, webSocket: client });
}

export function broadcast(ctx: DurableObjectState, events: readonly RunEvent[]): void {
  const sockets = ctx.getWebSockets();
  if (sockets.length === 0) return;
  const messages = events.map((e) => JSON.stringify(e));
  for (const ws of sockets) {
    try {
      for (const m of messages) ws.send(m);
    } catch {
      // A socket that closed under us is dropped by the runtime; the others still get the events.
    }
  }
}
