/**
 * A run followed live: the snapshot (`GET /v1/runs/:id`) and the fold of its events — its past read
 * in pages of `/events` (run-past.ts), then watch() over the WebSocket (or polling) after the last seq
 * read — redrawn at most once a frame however fast events come.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { applyEvent, EdgeplanApiError, emptyView, type Run, type RunEvent, type RunView } from '../client';
import { isTransient } from '../client/watch';
import { api, errorText, tokenNeeded } from './api';
import { readPast } from './run-past';

export type LiveRun = {
  view: RunView;
  events: RunEvent[];
  run: Run | null;
  error: string | null;
  /** The API has no such run (a mistyped or foreign id): nothing to follow. */
  missing: boolean;
  /** The service went away (a restart, the network): the watch is trying again, the last state kept. */
  reconnecting: boolean;
  /**
   * While reconnecting: what the service answered instead of the run, when it did answer — a `503`
   * such as `run_newer_format` (a rollback to a release that cannot read this run) says what to do,
   * where "connection lost" would send a person to look at their network. Null when it did not answer.
   */
  answered: string | null;
  /**
   * The run's live connection was refused because the run serves all it takes (`429
   * too_many_sockets`, its message): the page follows the run by asking the server instead, a little
   * later than live, and tries a live connection again now and then. Null while live.
   */
  polling: string | null;
  /**
   * The events are read up to the snapshot first read (its `last_seq`). Until then the page is
   * replaying the run's past — a rejected run passes through "awaiting approval", a completed one
   * through its earlier versions — and what the view says is not what the API would allow now.
   */
  caughtUp: boolean;
  /** Follow again after the last event seen (after an action that makes an ended run go on). */
  restart: () => void;
  /** Reads the snapshot again; resolves to it, or null when it could not be read (then said). */
  refresh: () => Promise<Run | null>;
};

/** Events after which the snapshot (plan, inferred dependencies, results) is read again. */
const REREAD = new Set([
  'PlanAuthored',
  'PlanUpdated',
  'RunTerminated',
  'ApprovalRequested',
  'InputRequested',
  'RunResumed',
]);

/**
 * While the page replays a run's past up to the snapshot first read, it redraws once per this many
 * events (or a twentieth of that past, when more) rather than once a frame: each redraw lays out every step, and a 10,000-step run's 30,000
 * events redrawn a frame at a time took 40 s to read (the snapshot's counts and colours are drawn
 * meanwhile: run-status.ts).
 */
const CATCH_UP_EVENTS = 2000;

/** How long after losing the service the page tries to follow the run again. */
const RECONNECT_MS = 2000;

export function useRun(runId: string): LiveRun {
  const [, setTick] = useState(0);
  const [run, setRun] = useState<Run | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [missing, setMissing] = useState(false);
  const [reconnecting, setReconnecting] = useState(false);
  const [answered, setAnswered] = useState<string | null>(null);
  const [polling, setPolling] = useState<string | null>(null);
  /** A snapshot read refused for now: said while the page tries again, if the service answered. */
  const refusedForNow = useCallback((err: EdgeplanApiError) => {
    setReconnecting(true);
    setAnswered(err.status > 0 ? errorText(err) : null);
  }, []);
  const [nonce, setNonce] = useState(0);
  const state = useRef({ runId, view: emptyView(runId), events: [] as RunEvent[], caughtUp: false });
  /** The last seq of the first snapshot read of `runId`: the page replays the run's past up to it. */
  const firstSeq = useRef<{ runId: string; seq: number } | null>(null);
  const frame = useRef(0);

  const refresh = useCallback(async (): Promise<Run | null> => {
    try {
      const read = await api().getRun(runId);
      if (firstSeq.current?.runId !== runId) firstSeq.current = { runId, seq: read.last_seq };
      setRun(read);
      setAnswered(null);
      return read;
    } catch (err) {
      if (err instanceof EdgeplanApiError && err.status === 404) setMissing(true);
      // Out of reach (a restart), or refused for now: the watch is waiting it out, and says so.
      if (err instanceof EdgeplanApiError && isTransient(err)) refusedForNow(err);
      else setError(errorText(err));
      return null;
    }
  }, [runId, refusedForNow]);

  useEffect(() => {
    const ac = new AbortController();
    let retry: ReturnType<typeof setTimeout> | undefined;
    // Another run starts from nothing; the same run followed again (after a retry, a rollback, a lost
    // service) goes on after the last event it has: replaying from the start would show it passing
    // through its earlier states again.
    if (state.current.runId !== runId)
      state.current = { runId, view: emptyView(runId), events: [], caughtUp: false };
    let after = state.current.view.last_seq;
    setError(null);
    setMissing(false);
    setPolling(null);
    const redraw = () => {
      if (frame.current) return;
      frame.current = requestAnimationFrame(() => {
        frame.current = 0;
        setTick((t) => t + 1);
      });
    };
    /** The seq of the last event read from the past's pages that has the snapshot read again. */
    let rereadAt = 0;
    /** Folds one event in; `paged` when it came with a page of the run's past. */
    const take = (e: RunEvent, paged: boolean) => {
      applyEvent(state.current.view, e);
      state.current.events.push(e);
      // Replaying the past up to the snapshot: that snapshot is newer than any event on the way
      // to it (no read again), and what is drawn meanwhile is the snapshot's (no redraw a frame).
      const first = firstSeq.current;
      const replaying = !state.current.caughtUp && first?.runId === runId && e.seq < first.seq;
      if (replaying || paged) {
        // At most twenty redraws however long the past (each lays out the page: a 100,000-step run's).
        if (e.seq % Math.max(CATCH_UP_EVENTS, Math.ceil((first?.seq ?? 0) / 20)) === 0) redraw();
        // A page may come before the snapshot does: whether it holds news is decided once both are read.
        if (paged && REREAD.has(e.event_type)) rereadAt = e.seq;
        return;
      }
      if (REREAD.has(e.event_type)) void refresh();
      redraw();
    };
    const firstRead = refresh();
    void (async () => {
      // No token entered where one is needed: the read above says so; a socket would only be refused.
      if (tokenNeeded()) return;
      try {
        after = await readPast(runId, after, ac.signal, (e) => take(e, true)).catch((err: unknown) => {
          // Refused for now, or out of reach: the watch waits that out (and says so) from what was read.
          if (err instanceof EdgeplanApiError && isTransient(err)) return state.current.view.last_seq;
          throw err;
        });
        if (ac.signal.aborted) return;
        redraw();
        // The past may reach beyond the snapshot (read meanwhile, or before the run went on): read it
        // again once for what changed it since, not once an event.
        await firstRead;
        if (rereadAt > (firstSeq.current?.seq ?? 0)) void refresh();
        const events = api().watch(runId, {
          signal: ac.signal,
          after,
          // Called before each try to reach the service again (it waits a server restart out) …
          onReconnect: () => setReconnecting(true),
          // … and once it answers: the run may have been decided meanwhile, so read it again.
          onReconnected: () => {
            setReconnecting(false);
            void refresh();
          },
          // Refused a socket (the run serves all it takes): followed by asking, which the page says.
          onTransport: (transport, reason) =>
            setPolling(transport === 'poll' && reason ? reason.message : null),
        });
        for await (const e of events) {
          setReconnecting(false);
          take(e, false);
        }
      } catch (err) {
        if (ac.signal.aborted) return;
        // Out of reach — the service this page came from went away (before the watch reached it, or
        // for longer than it waits) — or back but refusing the run for now (a `503 run_newer_format`
        // after a rollback, met by a watch that had not reached the service yet): an outage, said
        // calmly with what the service answered, and followed again a little later rather than a run
        // shown frozen behind an error. Other errors (404) stay shown.
        if (err instanceof EdgeplanApiError && isTransient(err)) {
          refusedForNow(err);
          retry = setTimeout(() => setNonce((n) => n + 1), RECONNECT_MS);
          return;
        }
        setReconnecting(false);
        setError(errorText(err));
      }
    })();
    return () => {
      ac.abort();
      clearTimeout(retry);
    };
  }, [runId, nonce, refresh, refusedForNow]);

  // Back when the service answers again, should the watch not say so first (a snapshot read that
  // failed while the watch itself kept its connection).
  useEffect(() => {
    if (!reconnecting) return;
    const t = setInterval(() => {
      api()
        .getRun(runId)
        .then((r) => {
          setRun(r);
          setReconnecting(false);
          setAnswered(null);
        })
        .catch((err: unknown) => {
          if (err instanceof EdgeplanApiError && isTransient(err)) refusedForNow(err);
        });
    }, RECONNECT_MS / 2);
    return () => clearInterval(t);
  }, [reconnecting, runId, refusedForNow]);

  // Once caught up, it stays so: later snapshots (read after an action, or a REREAD event) may be a
  // little ahead of the socket, which is no replay of the past.
  const s = state.current;
  if (!s.caughtUp && s.runId === runId && run?.run_id === runId && s.view.last_seq >= run.last_seq)
    s.caughtUp = true;

  return {
    view: state.current.view,
    events: state.current.events,
    run,
    error,
    missing,
    reconnecting,
    answered: reconnecting ? answered : null,
    polling,
    caughtUp: s.runId === runId && s.caughtUp,
    restart: () => setNonce((n) => n + 1),
    refresh,
  };
}
