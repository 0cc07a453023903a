/**
 * Leases on queue-dispatched attempts (issue 10): the consumer running an attempt holds its lease and
 * renews it while the tool runs, so a consumer that died — or a continuation taken back by one — is
 * noticed within about {@link LEASE_MS}, and the attempt is sent again (same attempt, same
 * idempotency key) instead of waiting for the step's timeout. A second consumer that gets the same
 * attempt while its lease is held by a live one leaves it alone; a redelivery (the queue's retry after
 * its consumer failed) takes the lease over. Leases live in memory: after a restart every running
 * attempt gets a fresh lease, time for its consumer to renew it or be found missing.
 */

/** How long a lease lasts unrenewed. Consumers renew every third of it. */
export const LEASE_MS = 15_000;
/** How long a queued attempt may wait for its first delivery before it is sent again. */
export const QUEUED_MS = 60_000;

type Lease = { attempt: number; until: number; begun: boolean };

export class Leases {
  /** Overridable per instance (tests shorten it). */
  ttlMs = LEASE_MS;
  queuedMs = QUEUED_MS;
  readonly #held = new Map<string, Lease>();

  /** The attempt was sent to the queue: its first consumer has `queuedMs` to begin it. */
  queued(stepId: string, attempt: number, now: number): void {
    this.#held.set(stepId, { attempt, until: now + this.queuedMs, begun: false });
  }

  /**
   * A consumer begins the attempt. False when another live consumer holds it — unless `takeover`
   * (a redelivered message: its consumer gave up or died).
   */
  take(stepId: string, attempt: number, now: number, takeover: boolean): boolean {
    const l = this.#held.get(stepId);
    if (l && l.attempt === attempt && l.begun && l.until > now && !takeover) return false;
    this.#held.set(stepId, { attempt, until: now + this.ttlMs, begun: true });
    return true;
  }

  /** Consumers still running these attempts extend their leases. */
  renew(attempts: readonly { step_id: string; attempt: number }[], now: number): void {
    for (const a of attempts) {
      const l = this.#held.get(a.step_id);
      if (l?.attempt === a.attempt && l.begun) l.until = now + this.ttlMs;
    }
  }

  /**
   * Running queue attempts whose lease ran out (`running`: step id → attempt). Each gets a queued
   * lease again, as it is about to be sent again; an attempt with no lease (a restart) gets one.
   */
  expired(running: ReadonlyMap<string, number>, now: number): { step_id: string; attempt: number }[] {
    const out: { step_id: string; attempt: number }[] = [];
    for (const [id, l] of this.#held) if (running.get(id) !== l.attempt) this.#held.delete(id);
    for (const [step_id, attempt] of running) {
      const l = this.#held.get(step_id);
      if (!l) this.#held.set(step_id, { attempt, until: now + this.ttlMs, begun: false });
      else if (l.until <= now) {
        out.push({ step_id, attempt });
        this.queued(step_id, attempt, now);
      }
    }
    return out;
  }

  /** When the next lease runs out, or null. */
  nextExpiry(): number | null {
    let min: number | null = null;
    for (const l of this.#held.values()) if (min === null || l.until < min) min = l.until;
    return min;
  }
}
