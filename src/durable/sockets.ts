/**
 * Live progress over WebSocket with the hibernation API: a client gets the backlog after `?after=`,
 * then every new event, one JSON event per message. The backlog is sent synchronously before the
 * socket is handed back, so no event can slip between backlog and live; it is read a page at a time
 * (bounded by count and bytes), so a long log of large events is never in memory at once — and one
 * connection is sent at most {@link WS_BACKLOG_BYTES} of it, then closed with {@link BACKLOG_CLOSE}
 * and the seq to go on after (the client reconnects from there).
 *
 * A run serves at most {@link WS_MAX_SOCKETS} sockets at once; one more is refused before the upgrade
 * (`429 too_many_sockets`). Every message queued stays in the object's memory until the client reads
 * it, and a client that never reads never frees it: so the backlog shares of a run's open sockets
 * together stay within {@link WS_BACKLOG_BYTES} — a socket opened while others hold it gets a 64th
 * of it (256 KiB) — instead of each of a hundred silent sockets holding its own 16 MiB.
 *
 * A message carries at most {@link WS_MESSAGE_BYTES}: an event larger than that (a big step output)
 * is sent with its payload replaced by `{"$elided": {bytes, reason, href}}`, `href` the page of
 * `GET /v1/runs/:id/events` that holds it whole.
 *
 * The socket carries events one way. A client may send the text `ping` (answered `pong`, to check the
 * connection); any other frame — a command, garbage, binary, a megabyte of it — closes the socket with
 * 1003 and a reason saying so, instead of being dropped unseen while the client waits for an answer
 * (and waking the object for every one a misbehaving client keeps sending).
 */
import { z } from 'zod';
import type { RunEvent } from '../engine/events';
import { utf8Bytes } from '../engine/value-limits';
import type { SqlStore } from './sql-store';

/** The largest message sent: what a WebSocket in a Worker accepts (1 MiB), less room for framing. */
export const WS_MESSAGE_BYTES = 1024 * 1024 - 1024;

/**
 * The most backlog a run's open sockets are sent between them (one socket alone: all of it). Every
 * message is queued before the socket is handed back, so a long log (300,000 events of a
 * 100,000-step run: 130 MB) would all sit in the object's 128 MB at once. Past its share a socket
 * closes with {@link BACKLOG_CLOSE}, and the client reconnects after the last seq it got (`watch()`
 * does, at once).
 */
export const WS_BACKLOG_BYTES = 16 * 1024 * 1024;
/** The share of a socket opened while the others hold the rest, of {@link WS_BACKLOG_BYTES}: it still makes headway. */
const MIN_SHARE_DIVISOR = 64;
/** The most sockets open on one run; one more is refused (`429 too_many_sockets`) before the upgrade. */
export const WS_MAX_SOCKETS = 100;
/** The close code (private range, RFC 6455) of a socket that sent its share of the backlog. */
export const BACKLOG_CLOSE = 4000;

let backlogBytes = WS_BACKLOG_BYTES;
let maxSockets = WS_MAX_SOCKETS;
/** Test seam: a smaller backlog budget (null: the default). */
export function setWsBacklogBytes(bytes: number | null): void {
  backlogBytes = bytes ?? WS_BACKLOG_BYTES;
}
/** Test seam: fewer sockets per run (null: the default). */
export function setWsMaxSockets(count: number | null): void {
  maxSockets = count ?? WS_MAX_SOCKETS;
}

/** A socket's attachment: the backlog bytes queued for it when it opened. */
const SocketAttachmentSchema = z.object({ backlog: z.number().nonnegative() });

/** The backlog queued for `ws` (0 for a socket opened before attachments were kept). */
function backlogOf(ws: WebSocket): number {
  const parsed = SocketAttachmentSchema.safeParse(ws.deserializeAttachment());
  return parsed.success ? parsed.data.backlog : 0;
}

/**
 * The object's answer to `GET /v1/runs/:id/ws`: `404` when the object holds no run (`hasRun`), `429`
 * when it serves all the sockets it takes, `426` without a WebSocket upgrade, else the socket, from
 * event `?after=`. The cap is looked at before the upgrade so that a plain GET says why a socket would
 * be refused: a browser's WebSocket is told nothing of a refused upgrade but that it failed.
 */
export function eventSocketResponse(
  ctx: DurableObjectState,
  store: SqlStore,
  request: Request,
  hasRun: () => boolean,
): Response {
  if (!hasRun())
    return Response.json({ error: { code: 'run_not_found', message: 'No such run' } }, { status: 404 });
  const open = ctx.getWebSockets().length;
  if (open >= maxSockets) return tooManySockets(ctx.id.name ?? 'this run', open);
  if (request.headers.get('Upgrade') !== 'websocket') {
    return Response.json(
      { error: { code: 'upgrade_required', message: 'Connect with a WebSocket upgrade' } },
      { status: 426 },
    );
  }
  const after = Number(new URL(request.url).searchParams.get('after') ?? 0);
  return acceptEventSocket(ctx, store, Number.isFinite(after) ? after : 0);
}

/** The refusal of a socket past {@link WS_MAX_SOCKETS}: what to follow the run with instead. */
function tooManySockets(runId: string, open: number): Response {
  const message =
    `Run "${runId}" has ${open} WebSockets open, the most one run serves: follow it over HTTP ` +
    `(GET /v1/runs/${runId}/wait?until=any_change, or /events?after=<last seq>), or close a socket you no longer read`;
  return Response.json(
    { error: { code: 'too_many_sockets', message, details: { open, max_sockets: maxSockets } } },
    { status: 429, headers: { 'Retry-After': '30' } },
  );
}

export function acceptEventSocket(ctx: DurableObjectState, store: SqlStore, after: number): Response {
  const pair = new WebSocketPair();
  const [client, server] = [pair[0], pair[1]];
  // `ping` is answered by the runtime, without waking a hibernated object for it.
  ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('ping', 'pong'));
  // What the other open sockets were queued is theirs until they close (unread, it is still held).
  let held = 0;
  for (const ws of ctx.getWebSockets()) held += backlogOf(ws);
  const share = Math.max(backlogBytes / MIN_SHARE_DIVISOR, backlogBytes - held);
  ctx.acceptWebSocket(server);
  let sent = 0;
  let last = after;
  for (const e of store.events.stream(after)) {
    if (sent >= share) {
      // More to come: the client asks for it on a new socket (this one's share is queued already).
      server.close(BACKLOG_CLOSE, `more events after seq ${last}: reconnect with ?after=${last}`);
      break;
    }
    const message = eventMessage(e);
    server.send(message);
    // In bytes, as the share is: a character of CJK text is three of them.
    sent += utf8Bytes(message);
    last = e.seq;
  }
  server.serializeAttachment({ backlog: sent });
  return new Response(null, { status: 101, webSocket: client });
}

export function broadcast(ctx: DurableObjectState, events: readonly RunEvent[]): void {
  const sockets = ctx.getWebSockets();
  if (sockets.length === 0) return;
  const messages = events.map(eventMessage);
  for (const ws of sockets) {
    try {
      for (const m of messages) ws.send(m);
    } catch {
      // A socket that closed under us is dropped by the runtime; the others still get the events.
    }
  }
}

/** The close code for a frame the socket does not take (RFC 6455: data it cannot accept). */
export const UNSUPPORTED_FRAME = 1003;

/** Answers one frame a client sent: `ping` gets `pong`; anything else closes the socket, saying why. */
export function answerClientFrame(ws: WebSocket, message: string | ArrayBuffer): void {
  if (message === 'ping') return ws.send('pong');
  const reason =
    typeof message === 'string'
      ? 'this socket only sends run events; the one message it takes is the text "ping"'
      : 'binary frames are not taken; this socket only sends run events (send the text "ping")';
  try {
    ws.close(UNSUPPORTED_FRAME, reason);
  } catch {
    // Closed already (the client went away meanwhile): nothing to say it to.
  }
}

/** The event as one message: whole, or with its payload elided when it is too large to send. */
export function eventMessage(e: RunEvent): string {
  const text = JSON.stringify(e);
  if (text.length * 3 <= WS_MESSAGE_BYTES) return text;
  const bytes = utf8Bytes(text);
  if (bytes <= WS_MESSAGE_BYTES) return text;
  const runId = e.actor.startsWith('run:') ? e.actor.slice(4) : '';
  const $elided = {
    bytes,
    reason: `event over the ${WS_MESSAGE_BYTES} bytes a message carries`,
    href: `/v1/runs/${runId}/events?after=${e.seq - 1}&limit=1`,
  };
  return JSON.stringify({ ...e, payload: { $elided } });
}

/** A client closed its socket: closed on this side too (a close code it may not send becomes 1000). */
export function closeClientSocket(ws: WebSocket, code: number): void {
  // A client that dropped its connection without a close frame leaves a socket that cannot be closed
  // (1006 may not be sent): there is nothing left to do for it, and a throw here helps nobody.
  try {
    ws.close(code === 1005 || code === 1006 || code === 1015 ? 1000 : code, 'closing');
  } catch {
    // already closed
  }
}
