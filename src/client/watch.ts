/**
 * `watch(runId)`: a run's events as an async iterator, in seq order, each once, ending after the
 * `RunTerminated` that leaves the run ended (a retried run goes on past an earlier one). Over the
 * run's WebSocket (`/v1/runs/:id/ws?after=`) — the token a header in Node ≥ 22 and Workers, a
 * subprotocol in browsers — and by polling `GET /events` where no WebSocket opens. A dropped socket
 * is reopened after the last seq seen, so nothing is lost or repeated; a socket that cannot be opened
 * at all falls back to polling. A server that goes away after it was reached (a restart) is waited
 * for, with backoff, for up to `reconnectForMs`; resuming after the run's last event ends at once.
 */
import { baseOf, EdgeplanApiError, type Call, type ClientOptions } from './http';
import { BACKLOG_CLOSE, openSocket } from './run-socket';
import { TERMINAL_STATUSES, type EventsPage, type RunEvent, type RunStatusView } from './types';

export type WatchOptions = {
  /** Start after this seq (default 0: the whole trace first). */
  after?: number | undefined;
  /** Stops the iteration (the iterator returns). */
  signal?: AbortSignal | undefined;
  /** `auto` (default): WebSocket when it can carry the token, else polling. */
  transport?: 'auto' | 'websocket' | 'poll' | undefined;
  /** Between polls when there is nothing new (default 250 ms). */
  pollIntervalMs?: number | undefined;
  /**
   * Called before the watch tries again after losing the server: a dropped socket reopened, or a
   * request that could not reach it (attempt counts from 1 and restarts once the server answers).
   */
  onReconnect?: ((attempt: number, after: number) => void) | undefined;
  /** Called when the server answers again after {@link onReconnect} (the watch goes on). */
  onReconnected?: (() => void) | undefined;
  /**
   * Called when the watch changes how it follows the run: `poll` when its WebSocket did not open —
   * `reason` the server's `429 too_many_sockets` when the run serves all the sockets it takes (then
   * the watch waits on `GET /wait?until=any_change` between reads, and tries a socket again after the
   * `Retry-After`), null when this runtime or something in between opens none — and `websocket` when
   * a socket opens again after that.
   */
  onTransport?: ((transport: 'websocket' | 'poll', reason: EdgeplanApiError | null) => void) | undefined;
  /**
   * How long to keep trying while the server, once reached, cannot be (a restart, a deploy): default
   * 5 minutes, then the last error is thrown. A server not reached at all is an error at once.
   */
  reconnectForMs?: number | undefined;
};

/** Waits `ms`, or until `signal` aborts; the abort listener goes with the timer (one per poll piled up). */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Failures a server restart or a proxy in between cause, worth waiting out: not the API's refusals. */
export function isTransient(err: unknown): boolean {
  if (!(err instanceof EdgeplanApiError)) return false;
  return (
    err.code === 'unreachable' ||
    err.code === 'timeout' ||
    err.status === 429 ||
    (err.status >= 502 && err.status <= 504)
  );
}

const TERMINAL = new Set<string>(TERMINAL_STATUSES);

/** How long a wait on `/wait` lasts while the run serves no more sockets (then a socket is tried again). */
const CAPPED_WAIT_S = 30;

/** Reads one run's events; see the module comment. */
export async function* watchRun(
  call: Call,
  options: ClientOptions,
  runId: string,
  {
    after = 0,
    signal,
    transport = 'auto',
    pollIntervalMs = 250,
    onReconnect,
    onReconnected,
    onTransport,
    reconnectForMs = 300_000,
  }: WatchOptions = {},
): AsyncGenerator<RunEvent, void, undefined> {
  const id = encodeURIComponent(runId);
  let last = after;
  let done = false;
  /**
   * Whether the last event seen leaves the run ended: a `RunTerminated` and anything after it but a
   * `RunResumed` — such as the outcome of an attempt that outlived the run (`after_run_ended`).
   */
  let ended = false;
  /** Whether the iteration ends after `e`: the run has ended and nothing follows it (yet). */
  async function endsAt(e: RunEvent): Promise<boolean> {
    if (e.event_type === 'RunTerminated') ended = true;
    else if (e.event_type === 'RunResumed') ended = false;
    return ended && (await over(e.seq));
  }

  /**
   * Whether the run is over at the event with this seq (a `RunTerminated`, or an event after it):
   * nothing follows it. A retried run goes on past an earlier end (`RunResumed` follows), and so does
   * the iteration.
   */
  async function over(seq: number): Promise<boolean> {
    const { body } = await call<EventsPage>('GET', `/v1/runs/${id}/events`, {
      query: { after: seq, limit: 1 },
      signal,
    });
    return body.events.length === 0;
  }

  /** Events after `last` up to `until` (inclusive, or all), read from `/events`. */
  async function* fill(until = Infinity): AsyncGenerator<RunEvent> {
    for (;;) {
      const { body } = await call<EventsPage>('GET', `/v1/runs/${id}/events`, {
        query: { after: last, limit: 500 },
        signal,
      });
      reached();
      if (!Array.isArray(body.events))
        throw new EdgeplanApiError(
          0,
          'invalid_response',
          `${baseOf(options)} answered GET /v1/runs/${id}/events without its "events" list: is it an edgeplan server?`,
        );
      for (const e of body.events.map((e) =>
        checkedEvent(e, `${baseOf(options)} answered GET /v1/runs/${id}/events with`),
      )) {
        if (e.seq > until) return;
        if (e.seq <= last) continue;
        last = e.seq;
        yield e;
        if (await endsAt(e)) return void (done = true);
      }
      if (!body.has_more || body.events.length === 0) return;
    }
  }

  // Reaching the server once makes later failures to reach it a restart to wait out (with backoff,
  // for up to `reconnectForMs`); before that they are thrown at once: a wrong URL, a server not up.
  let everReached = false;
  let failingSince: number | null = null;
  let attempt = 0;
  function reached() {
    everReached = true;
    failingSince = null;
    if (attempt > 0) onReconnected?.();
    attempt = 0;
  }
  /** Waits before trying again, or throws `err` when it is not worth waiting out. */
  async function backOff(err: unknown): Promise<void> {
    // Stopped by the caller (a request or a wait to send one again): the loop ends, no error.
    if (signal?.aborted) return;
    if (!everReached || !isTransient(err)) throw err;
    failingSince ??= Date.now();
    if (Date.now() - failingSince > reconnectForMs) throw err;
    await pause();
  }
  /** The wait before the next try: 0.1 s, doubling, at most 5 s. */
  async function pause(): Promise<void> {
    attempt += 1;
    onReconnect?.(attempt, last);
    await sleep(Math.min(100 * 2 ** (attempt - 1), 5000), signal);
  }

  // Resuming after the seq of the run's last event, the run ended: there is nothing to wait for.
  // Resuming earlier: whether the run has ended tells whether the events still to come end it.
  // Nothing after `after` is looked for again once the status says ended: a run still going at the
  // first look (resumed at its last event — the dashboard after Approve) may have gone on and ended
  // before its status was read, and its last events would never have been shown.
  if (after > 0) {
    try {
      const nothingAfter = await over(after);
      const { body } = await call<RunStatusView>('GET', `/v1/runs/${id}/status`, { signal });
      ended = TERMINAL.has(body.run_status);
      if (nothingAfter && ended && (await over(after))) return;
    } catch (err) {
      if (signal?.aborted) return;
      throw err;
    }
  }

  /**
   * Why the run's socket did not open, as the API says on a GET of `/ws` without the upgrade: its
   * `429 too_many_sockets` when the run serves all the sockets it takes; else null (it would take one:
   * something in between refused it — what polling meets says the rest).
   */
  async function refusal(): Promise<EdgeplanApiError | null> {
    try {
      await call('GET', `/v1/runs/${id}/ws`, { query: { after: last }, signal });
      return null;
    } catch (err) {
      return err instanceof EdgeplanApiError && err.code === 'too_many_sockets' ? err : null;
    }
  }
  /** Set while the run serves no more sockets: when to try one again (its `Retry-After`). */
  let cappedUntil: number | null = null;
  /** Follows by polling from now on, saying why; with `websocket`, the refusal is thrown instead. */
  function fallBack(reason: EdgeplanApiError | null): void {
    if (transport === 'websocket' && reason) throw reason;
    cappedUntil = reason ? Date.now() + (reason.retryAfterMs ?? CAPPED_WAIT_S * 1000) : null;
    useSocket = false;
    onTransport?.('poll', reason);
  }

  let useSocket = transport !== 'poll';
  let socketWorks = false;
  while (!done && !signal?.aborted) {
    if (useSocket) {
      const socket = await openSocket(options, `/v1/runs/${id}/ws?after=${last}`).catch(() => null);
      if (!socket) {
        if (transport === 'websocket')
          throw new EdgeplanApiError(
            0,
            'websocket_unavailable',
            'This runtime cannot open the run’s WebSocket',
          );
        fallBack(null);
        continue;
      }
      const onAbort = () => socket.close();
      signal?.addEventListener('abort', onAbort, { once: true });
      let opened = false;
      let more: boolean;
      try {
        for (;;) {
          const f = await socket.next();
          if (f.kind === 'open') {
            if (cappedUntil !== null) onTransport?.('websocket', null);
            cappedUntil = null;
            opened = socketWorks = true;
            reached();
            continue;
          }
          if (f.kind === 'closed') {
            more = f.code === BACKLOG_CLOSE;
            break;
          }
          // The answer to a `ping` (someone else's keep-alive through a proxy): not an event.
          if (f.text === 'pong') continue;
          const e = eventOf(f.text, `${baseOf(options)} sent on run ${runId}'s WebSocket`);
          if (e.seq <= last) continue;
          // A gap (never expected: the socket sends the backlog first) or an event too large for a
          // message (its payload elided) is read from /events instead.
          const elided = typeof e.payload === 'object' && e.payload !== null && '$elided' in e.payload;
          if (e.seq > last + 1 || elided) {
            yield* fill(e.seq);
            if (done) return;
            continue;
          }
          last = e.seq;
          yield e;
          if (await endsAt(e)) return;
        }
      } catch (err) {
        await backOff(err);
        continue;
      } finally {
        signal?.removeEventListener('abort', onAbort);
        socket.close();
      }
      if (signal?.aborted) return;
      // The server sent its share of a long backlog: the rest comes on a new socket, after `last`.
      if (opened && more) continue;
      if (opened) {
        // Dropped: reopened after the last seq seen.
        await pause();
        continue;
      }
      // Not opened: the run may serve all the sockets it takes (the server says so when asked). Then
      // the run is followed over HTTP — with `websocket`, that refusal is thrown — rather than a socket
      // asked for again and again.
      const capped = await refusal();
      if (signal?.aborted) return;
      if (capped) {
        fallBack(capped);
        continue;
      }
      if (!socketWorks) {
        // Never opened here: the server or a proxy does not speak WebSocket (or refused it). With
        // `auto`, poll instead; with `websocket`, say why — the API's own answer when it has one.
        if (transport !== 'websocket') {
          fallBack(null);
          continue;
        }
        await call('GET', `/v1/runs/${id}/events`, { query: { after: last, limit: 1 }, signal });
        throw new EdgeplanApiError(0, 'websocket_refused', 'The run’s WebSocket was refused');
      }
      // A socket that worked does not open again: the server restarts, or the run's events are out
      // of reach. Catch up over HTTP — its answer says which — then open the socket again.
      try {
        yield* fill();
        if (done) return;
      } catch (err) {
        await backOff(err);
      }
      continue;
    }
    const before = last;
    try {
      yield* fill();
      if (done || last !== before) continue;
      if (cappedUntil === null) await sleep(pollIntervalMs, signal);
      else {
        // The run serves no more sockets: its next event is waited for on the server, one request
        // at a time, and a socket tried again once the refusal's Retry-After has passed.
        const left = Math.ceil((cappedUntil - Date.now()) / 1000);
        if (left > 0) {
          const query = { until: 'any_change', after: last, timeout_s: Math.min(left, CAPPED_WAIT_S) };
          await call('GET', `/v1/runs/${id}/wait`, { query, signal });
        }
        if (Date.now() >= cappedUntil) useSocket = true;
      }
    } catch (err) {
      await backOff(err);
    }
  }
}

/** A WebSocket message as an event of the API's, or `invalid_response` saying what it was. */
function eventOf(text: string, sent: string): RunEvent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new EdgeplanApiError(
      0,
      'invalid_response',
      `${sent} a message that is not JSON: ${text.slice(0, 200)}`,
    );
  }
  return checkedEvent(value, `${sent} a message with`);
}

/**
 * The event, when it has what the watch relies on (a `seq` counting from 1, an `event_type`); else
 * `invalid_response`: taken as it is, it would be yielded with no seq, or fail with a TypeError.
 */
function checkedEvent(value: unknown, where: string): RunEvent {
  const e = value as { seq?: unknown; event_type?: unknown } | null;
  if (
    typeof e === 'object' &&
    e !== null &&
    Number.isSafeInteger(e.seq) &&
    (e.seq as number) > 0 &&
    typeof e.event_type === 'string'
  )
    return value as RunEvent;
  throw new EdgeplanApiError(
    0,
    'invalid_response',
    `${where} something that is not a run event (no whole "seq" from 1 and "event_type"): ${JSON.stringify(value)?.slice(0, 200)}`,
  );
}
