/**
 * The run's WebSocket (`/v1/runs/:id/ws?after=`) as a queue of frames, opened as the runtime allows:
 * with fetch and an Upgrade header in Workers, the token a header in Node and a subprotocol in
 * browsers; an opening that never answers counts as a refused one. watch.ts reads the frames.
 */
import { baseOf, type ClientOptions } from './http';
import { wsProtocols } from './ws-protocol';

export type Frame = { kind: 'message'; text: string } | { kind: 'open' } | { kind: 'closed'; code?: number };

/** The close code of a socket that sent its share of a long backlog: go on after the last seq at once. */
export const BACKLOG_CLOSE = 4000;

/** A socket as a queue of frames. */
export type Socket = { next: () => Promise<Frame>; close: () => void };

function queue(): { push: (f: Frame) => void; next: () => Promise<Frame> } {
  const frames: Frame[] = [];
  let waiting: ((f: Frame) => void) | null = null;
  return {
    push(f) {
      if (waiting) {
        const w = waiting;
        waiting = null;
        w(f);
      } else frames.push(f);
    },
    next: () => (frames.length > 0 ? Promise.resolve(frames.shift()!) : new Promise((r) => (waiting = r))),
  };
}

/**
 * How long a socket may take to open when the client sets no `timeoutMs` (or 0, Infinity): a server (or a proxy)
 * that takes the connection and never answers the upgrade would otherwise hold the watch forever.
 */
const OPEN_TIMEOUT_MS = 30_000;

function wire(ws: WebSocket, q: ReturnType<typeof queue>, openTimeoutMs: number): Socket {
  // Not open in time: closed, as a socket that was refused is (polling takes over, with `auto`).
  const unanswered = setTimeout(() => {
    q.push({ kind: 'closed' });
    try {
      ws.close();
    } catch {
      // never opened
    }
  }, openTimeoutMs);
  ws.addEventListener('open', () => {
    clearTimeout(unanswered);
    q.push({ kind: 'open' });
  });
  ws.addEventListener('message', (m: MessageEvent) => {
    if (typeof m.data === 'string') q.push({ kind: 'message', text: m.data });
  });
  ws.addEventListener('close', (e: CloseEvent) => q.push({ kind: 'closed', code: e.code }));
  ws.addEventListener('error', () => q.push({ kind: 'closed' }));
  return {
    next: q.next,
    close: () => {
      clearTimeout(unanswered);
      try {
        ws.close(1000, 'done');
      } catch {
        // already closed
      }
    },
  };
}

const isWorkers = () => typeof (globalThis as { WebSocketPair?: unknown }).WebSocketPair === 'function';
const isBrowser = () => typeof (globalThis as { document?: unknown }).document !== 'undefined';

/** Opens the run's socket, or null when this runtime cannot open one that carries the token. */
export async function openSocket(options: ClientOptions, path: string): Promise<Socket | null> {
  const base = baseOf(options);
  const headers: Record<string, string> = options.token ? { Authorization: `Bearer ${options.token}` } : {};
  const q = queue();
  if (isWorkers()) {
    // Workers: a WebSocket is opened with fetch and an Upgrade header (service bindings too).
    const doFetch = options.fetch ?? fetch;
    const res = await doFetch(`${base}${path}`, { headers: { ...headers, Upgrade: 'websocket' } });
    const ws = (res as Response & { webSocket?: WebSocket & { accept(): void } }).webSocket;
    if (!ws) return null;
    ws.accept();
    const socket = wire(ws, q, 0);
    q.push({ kind: 'open' });
    return socket;
  }
  const WS = options.WebSocket ?? (globalThis as { WebSocket?: typeof WebSocket }).WebSocket;
  if (!WS) return null;
  const url = `${base.replace(/^http/, 'ws')}${path}`;
  // Node's WebSocket (undici) takes headers in its second argument; a browser cannot send headers, so
  // it offers the token as a subprotocol (ws-protocol.ts).
  const ws = !options.token
    ? new WS(url)
    : isBrowser()
      ? new WS(url, wsProtocols(options.token))
      : new WS(url, { headers } as unknown as string[]);
  // 0 and Infinity (no limit on requests) leave the opening its own bound: a timer of 0 fires at once.
  const t = options.timeoutMs;
  return wire(ws, q, t !== undefined && t > 0 && Number.isFinite(t) ? t : OPEN_TIMEOUT_MS);
}
