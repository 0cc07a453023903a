/**
 * The in-process runner's one timer, kept at the machine's next wake-up (a retry backoff, an attempt
 * deadline, an approval deadline): re-set only when that time changes.
 */

/**
 * Where a runner sets its timer: `setTimeout` / `clearTimeout` unless the owner injects its own — a
 * fake for tests, or virtual time that fires as soon as nothing else is going on (with a `clock`
 * that jumps to the time it fires at), so backoffs and deadlines cost no real waiting.
 * @example
 * const queued: Array<() => void> = [];
 * const timers: Timers = { set: (fire) => queued.push(fire), clear: () => {} };
 * new LocalRunner({ tools, clock, timers }); // queued.shift()?.() fires the runner's next wake-up
 */
export type Timers = {
  /** Calls `fire` once, `ms` after now on the runner's clock; returns a handle for `clear`. */
  set(fire: () => void, ms: number): unknown;
  /** Cancels a timer `set` returned that has not fired. */
  clear(handle: unknown): void;
};

/** The host's own timers. */
export const realTimers: Timers = {
  set: (fire, ms) => setTimeout(fire, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Longest delay setTimeout accepts; a larger one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class WakeTimer {
  #handle: unknown;
  #armed = false;
  #at: number | null = null;

  /**
   * @param fire called once when the time comes; the timer is then unset.
   * @param timers where the timer is set (default: the host's `setTimeout`).
   */
  constructor(
    private readonly fire: () => void,
    readonly timers: Timers = realTimers,
  ) {}

  /** Wakes at `at` (epoch ms; null: never), `now` being the current time on the run's clock. */
  set(at: number | null, now: number): void {
    if (at === this.#at) return;
    this.clear();
    this.#at = at;
    if (at === null) return;
    this.#armed = true;
    this.#handle = this.timers.set(
      () => {
        this.#armed = false;
        this.#handle = undefined;
        this.#at = null;
        this.fire();
      },
      Math.min(MAX_TIMER_MS, Math.max(0, at - now)),
    );
  }

  clear(): void {
    if (this.#armed) this.timers.clear(this.#handle);
    this.#armed = false;
    this.#handle = undefined;
    this.#at = null;
  }
}
