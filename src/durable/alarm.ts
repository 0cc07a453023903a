/**
 * The object's one alarm, kept at or before the earliest due time. An alarm that fires early is
 * harmless (the tick finds nothing due and the alarm is re-armed), so it is only ever moved earlier:
 * no storage call for the steps that do not change the earliest time. Once nothing is due (the run
 * ended, or waits on a person) it is deleted, in the same turn as the decision: an alarm left behind
 * would wake the object later for nothing, and under load those wake-ups cost the runs still going.
 */
import { MAX_WAIT_S } from '../plan/limits';

/**
 * The furthest ahead the alarm is set: twice the longest wait a run takes. A run stored before its
 * step's `timeout_ms` was bounded on every path (one of 10^13 ms was taken) has a deadline after 2189,
 * which `setAlarm` refuses — the object threw on every decision. Set no later than this, the alarm
 * fires early, finds nothing due, and is set again: harmless, as an early alarm is.
 */
const FURTHEST_ALARM_MS = 2 * MAX_WAIT_S * 1000;

/** `at`, or the furthest the alarm is set ahead of now when it is later. */
const reachable = (at: number): number => Math.min(at, Date.now() + FURTHEST_ALARM_MS);

export class Alarm {
  /** The alarm as this instance last set or read it (undefined: not read yet). */
  #at: number | null | undefined = undefined;

  constructor(private readonly storage: DurableObjectStorage) {}

  /** Makes sure the alarm fires no later than `at`. */
  async by(due: number | null): Promise<void> {
    if (due === null) return this.#clear();
    const at = reachable(due);
    // Read once per instance; `??=` would read again after a delete or fresh() (null), and the await
    // would put the setAlarm in a commit of its own instead of the decision's.
    if (this.#at === undefined) this.#at = await this.storage.getAlarm();
    if (this.#at !== null && this.#at <= at) return;
    await this.storage.setAlarm(at);
    this.#at = at;
  }

  /** Sets the alarm to exactly `at` (null: none), later than it is too: what was due earlier is gone. */
  async to(due: number | null): Promise<void> {
    if (due === null) return this.#clear();
    const at = reachable(due);
    if (this.#at === undefined) this.#at = await this.storage.getAlarm();
    if (this.#at === at) return;
    await this.storage.setAlarm(at);
    this.#at = at;
  }

  async #clear(): Promise<void> {
    if (this.#at === null) return;
    if (this.#at === undefined) this.#at = await this.storage.getAlarm();
    if (this.#at === null) return;
    this.#at = null;
    await this.storage.deleteAlarm();
  }

  /** The alarm fired: none is set now. */
  fired(): void {
    this.#at = null;
  }

  /** A new run's object: no alarm was ever set, so there is nothing to read. */
  fresh(): void {
    this.#at = null;
  }
}
