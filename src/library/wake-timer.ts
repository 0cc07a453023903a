/**
 * The in-process runner's one timer, kept at the machine's next wake-up (a retry backoff, an attempt
 * deadline, an approval deadline): re-set only when that time changes.
 */

/** Longest delay setTimeout accepts; a larger one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class WakeTimer {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #at: number | null = null;

  /** @param fire called once when the time comes; the timer is then unset. */
  constructor(private readonly fire: () => void) {}

  /** Wakes at `at` (epoch ms; null: never), `now` being the current time on the run's clock. */
  set(at: number | null, now: number): void {
    if (at === this.#at) return;
    this.clear();
    this.#at = at;
    if (at === null) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#at = null;
        this.fire();
      },
      Math.min(MAX_TIMER_MS, Math.max(0, at - now)),
    );
  }

  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#at = null;
  }
}
