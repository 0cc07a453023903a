/**
 * An in-process run's event log: the events in `seq` order, listeners called as events are appended,
 * and async iteration that replays the backlog and then follows the run until it settles.
 */
import type { RunEvent } from '../engine/events';

export type EventListener = (event: RunEvent) => void;

export class EventLog {
  readonly #events: RunEvent[] = [];
  readonly #listeners = new Set<EventListener>();
  #wake: (() => void)[] = [];
  #open = true;
  /** Events handed to listeners so far. */
  #delivered = 0;
  #delivering = false;
  readonly #onListenerError: (err: unknown) => void;

  constructor(onListenerError: (err: unknown) => void) {
    this.#onListenerError = onListenerError;
  }

  get events(): readonly RunEvent[] {
    return this.#events;
  }

  append(events: readonly RunEvent[]): void {
    if (events.length === 0) return;
    for (const e of events) this.#events.push(e);
    this.#notify();
    // A listener that feeds the run appends while we deliver: its events queue behind ours, in seq order.
    if (this.#delivering) return;
    this.#delivering = true;
    try {
      while (this.#delivered < this.#events.length) {
        const e = this.#events[this.#delivered++]!;
        for (const l of this.#listeners) {
          try {
            l(e);
          } catch (err) {
            // A listener's bug is the listener's: the run goes on.
            this.#onListenerError(err);
          }
        }
      }
    } finally {
      this.#delivering = false;
    }
  }

  /** Calls `listener` with every event appended from now on; returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Iterators finish once they have read everything (the run settled). */
  close(): void {
    this.#open = false;
    this.#notify();
  }

  /** More events are coming (a settled run was retried). */
  reopen(): void {
    this.#open = true;
  }

  /** The events after `after` (a seq), then each new one, until the run settles. */
  async *stream(after = 0): AsyncGenerator<RunEvent, void, undefined> {
    let i = this.#events.findIndex((e) => e.seq > after);
    if (i < 0) i = this.#events.length;
    for (;;) {
      while (i < this.#events.length) yield this.#events[i++]!;
      if (!this.#open) return;
      await new Promise<void>((resolve) => this.#wake.push(resolve));
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = [];
    for (const w of wake) w();
  }
}
