/**
 * The eval's time: a clock that stands still while anything a run started is going (an attempt, a
 * revision — whatever the eval wraps in {@link VirtualTime.during}) and, once nothing is, jumps to
 * the earliest timer and fires it. A retry's backoff therefore costs no real waiting, and a run that
 * waits with no timer set (it ended, or waits for a person) is {@link VirtualTime.idle}.
 */
import type { Clock } from '../../src/plan/model';
import type { Timers } from '../../src/library/wake-timer';

type Pending = { at: number; fire: () => void };

/** Where eval runs start on the virtual clock. */
const START = Date.parse('2026-01-01T00:00:00.000Z');

/**
 * @example
 * const time = new VirtualTime();
 * const runner = new LocalRunner({ tools, clock: time.clock, timers: time.timers });
 * runner.start({ plan }); // with tools whose runs go through time.during(...)
 * await time.idle(); // backoffs passed at once; the run ended or waits for a person
 */
export class VirtualTime {
  #now: number;
  readonly #pending = new Set<Pending>();
  #busy = 0;
  #kicked = false;
  #idle: Array<() => void> = [];

  constructor(start = START) {
    this.#now = start;
  }

  readonly clock: Clock = { now: () => new Date(this.#now) };

  readonly timers: Timers = {
    set: (fire, ms) => {
      const timer: Pending = { at: this.#now + ms, fire };
      this.#pending.add(timer);
      this.#kick();
      return timer;
    },
    clear: (handle) => void this.#pending.delete(handle as Pending),
  };

  /** Runs `work` as something going on: the clock waits for it to end. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    this.#busy += 1;
    try {
      return await work();
    } finally {
      this.#busy -= 1;
      this.#kick();
    }
  }

  /** Resolves once nothing is going on and no timer is set. */
  idle(): Promise<void> {
    const settled = new Promise<void>((resolve) => this.#idle.push(resolve));
    this.#kick();
    return settled;
  }

  /**
   * Looks again after a macrotask: by then whatever a finished piece of work led to (the runner
   * applying its result, re-setting its timer, starting the next attempts) has happened.
   */
  #kick(): void {
    if (this.#kicked) return;
    this.#kicked = true;
    setTimeout(() => {
      this.#kicked = false;
      this.#advance();
    }, 0);
  }

  #advance(): void {
    if (this.#busy > 0) return; // the end of that work kicks again
    let next: Pending | undefined;
    for (const t of this.#pending) if (!next || t.at < next.at) next = t;
    if (!next) {
      for (const resolve of this.#idle.splice(0)) resolve();
      return;
    }
    this.#pending.delete(next);
    this.#now = Math.max(this.#now, next.at);
    next.fire();
    this.#kick(); // a timer that led to nothing new leaves the run idle
  }
}
