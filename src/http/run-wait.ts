/**
 * Waiting for a run without polling it: the run's object sends its events over the WebSocket `/ws`
 * serves (hibernatable, so the object of a run that waits for a person may sleep meanwhile); each
 * time events come, the waiter asks the object for its status and last seq (`progress()`, a small RPC,
 * once per batch however many events it holds), and reads the whole run once, at the end.
 *
 * Each of those is a call of the request's, which Cloudflare bounds (Workers Free: 50 subrequests an
 * invocation; `wrangler dev` does not): a run busy for the whole wait rings its bell far more often, so
 * a wait that has used its calls ends early, `timed_out`, and its caller waits again.
 */
import type { RunObject } from '../durable/run-object';
import type { ServedRun } from '../durable/served-run';
import { progressOf } from './run-progress';
import { reached, type RunProgress, type WaitUntil } from './wait-condition';

export type WaitOptions = {
  until: WaitUntil;
  /** `any_change`: count events after this seq (default: the run's last when the wait begins). */
  after?: number;
  timeoutMs: number;
  /** Calls to the run's object the wait may make, its last read included (subrequest-budget.ts). */
  maxCalls?: number;
};

/**
 * The run when the wait ended, and whether it ended because the time was up; `after_beyond`: an
 * `any_change` wait's `after` (given back) is past the run's last event (its seq), refused before waiting;
 * null: no such run.
 */
export type WaitOutcome =
  { run: ServedRun; timed_out: boolean } | { after: number; after_beyond: number } | null;

/** A socket that closed at once is opened again after this long, not in a tight loop. */
const REOPEN_DELAY_MS = 250;
/** How often a wait refused a socket (the run serves as many as it takes) asks the run instead. */
const POLL_MS = 1000;

/**
 * Waits until the run is where `until` says, or `timeoutMs` passed.
 * @example await waitForRun(runObject(env.PLAN_RUN, id), { until: 'terminal', timeoutMs: 25_000 });
 */
export async function waitForRun(stub: RunObject, opts: WaitOptions): Promise<WaitOutcome> {
  const deadline = Date.now() + opts.timeoutMs;
  // The first progress, and the run read at the end, are always made.
  let calls = 2;
  const more = (n: number) => calls + n <= (opts.maxCalls ?? Infinity);
  let now: RunProgress | null = await progressOf(stub);
  if (!now) return null;
  // A seq the run never had (another run's, or one of a run deleted and made again under the same
  // key): the wait would answer only once the run passed it, every event up to it unseen, and a
  // client waiting without a limit would wait for ever.
  if (opts.until === 'any_change' && opts.after !== undefined && opts.after > now.last_seq)
    return { after: opts.after, after_beyond: now.last_seq };
  const after = opts.after ?? now.last_seq;
  let bell: EventBell | null = null;
  try {
    while (!reached(opts.until, now, after) && Date.now() < deadline) {
      if (!bell || bell.closed) {
        // A socket to open and a progress to ask after it rings.
        if (!more(2)) break;
        calls += 1;
        if (bell) await sleep(Math.min(REOPEN_DELAY_MS, deadline - Date.now()));
        bell = await EventBell.open(stub, now.last_seq);
        if (!bell) return null;
      } else if (!more(1)) break;
      await bell.rung(deadline - Date.now());
      calls += 1;
      now = await progressOf(stub);
      if (!now) return null;
    }
  } finally {
    bell?.close();
  }
  const run = await stub.getRun();
  if (!run) return null;
  return { run, timed_out: !reached(opts.until, run, after) };
}

/** The run's event socket as a bell: it rings when events come, and when the socket closes. */
class EventBell {
  closed = false;
  #rang = false;
  #wake: (() => void) | null = null;

  /** `ws` null: a bell without a socket, which rings once after {@link POLL_MS} and is closed then. */
  private constructor(private readonly ws: WebSocket | null) {
    ws?.addEventListener('message', () => this.#ring());
    ws?.addEventListener('close', () => this.#ring(true));
    ws?.addEventListener('error', () => this.#ring(true));
  }

  /**
   * The socket of events after `after`; null when the object holds no run (deleted meanwhile). A run
   * that serves as many sockets as it takes (`429 too_many_sockets`) is asked again after a while
   * instead — it has a run, and the wait is no reason to turn a caller away.
   */
  static async open(stub: RunObject, after: number): Promise<EventBell | null> {
    const res = await stub.fetch(`https://run.internal/ws?after=${after}`, {
      headers: { Upgrade: 'websocket' },
    });
    const ws = res.webSocket;
    if (!ws) return res.status === 429 ? new EventBell(null) : null;
    ws.accept();
    return new EventBell(ws);
  }

  /** Resolves once the bell rang since the last call (at once if it did), or after `ms`. */
  async rung(ms: number): Promise<void> {
    if (this.ws === null) {
      await sleep(Math.min(ms, POLL_MS));
      this.#ring(true);
    }
    if (!this.#rang && !this.closed && ms > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        timer = setTimeout(resolve, ms);
      });
      clearTimeout(timer);
      this.#wake = null;
    }
    this.#rang = false;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.ws?.close(1000, 'wait over');
    } catch {
      // closed by the other side meanwhile
    }
  }

  #ring(closed = false): void {
    if (closed) this.closed = true;
    this.#rang = true;
    this.#wake?.();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
