/**
 * Leases on queue-dispatched attempts (issue 10): the consumer running an attempt holds its lease and
 * renews it while the tool runs, so a consumer that died — or a continuation taken back by one — is
 * noticed within about {@link LEASE_MS}, and the attempt is sent again (same attempt, same
 * idempotency key) instead of waiting for the step's timeout. A second consumer that gets the same
 * attempt while its lease is held by a live one leaves it alone; a redelivery (the queue's retry after
 * its consumer failed) takes the lease over.
 *
 * Leases are rows in the object's SQLite: an idle object is unloaded within seconds, and one woken by
 * its alarm must still know when each lease runs out (in memory, every wake-up would grant a fresh
 * lease and a dead consumer's attempt would wait for its step timeout). Writes are one multi-row
 * statement a decision, a begin batch or a renewal.
 */
import { z } from 'zod';
import { LazyTable } from './lazy-table';
import { insertMany } from './sql-batch';

/** How long a lease lasts unrenewed. Consumers renew every third of it. */
export const LEASE_MS = 15_000;
/** How long a queued attempt may wait for its first delivery before it is sent again. */
export const QUEUED_MS = 60_000;

type Lease = { attempt: number; until: number; begun: boolean };

const LeaseRow = z.object({
  step_id: z.string(),
  attempt: z.number().int(),
  until: z.number(),
  begun: z.number().transform((b) => b === 1),
});

/** The leases' table. */
const LEASES_SCHEMA = `CREATE TABLE IF NOT EXISTS leases (
  step_id TEXT PRIMARY KEY, attempt INTEGER NOT NULL, until INTEGER NOT NULL, begun INTEGER NOT NULL) WITHOUT ROWID;`;

export class Leases {
  /** Overridable per instance (tests shorten it). */
  ttlMs = LEASE_MS;
  queuedMs = QUEUED_MS;
  #held: Map<string, Lease> | null = null;
  /** Created with the first lease (lazy-table.ts): a run whose steps all run in its object has none. */
  readonly #table: LazyTable;

  constructor(private readonly sql: SqlStorage) {
    this.#table = new LazyTable(sql, 'leases', LEASES_SCHEMA);
  }

  /** A new run's object: the table does not exist yet. */
  fresh(): void {
    this.#table.absent();
  }

  /**
   * Attempts sent to the queue: their first consumer has `queuedMs` to begin each — or until the
   * attempt's deadline, when that is sooner, so an attempt no consumer takes is noticed before it
   * would time out (the alarm, run-alarm.ts, then carries it out in the object).
   */
  queued(
    attempts: readonly { step_id: string; attempt: number; deadline_at?: number | null }[],
    now: number,
  ): void {
    this.#write(
      attempts.map((a) => [
        a.step_id,
        { attempt: a.attempt, until: Math.min(now + this.queuedMs, a.deadline_at ?? Infinity), begun: false },
      ]),
    );
  }

  /**
   * A consumer begins the attempt. False when another live consumer holds it — unless `takeover`
   * (a redelivered message: its consumer gave up or died).
   */
  take(stepId: string, attempt: number, now: number, takeover: boolean): boolean {
    const l = this.#all().get(stepId);
    if (l && l.attempt === attempt && l.begun && l.until > now && !takeover) return false;
    this.#write([[stepId, { attempt, until: now + this.ttlMs, begun: true }]]);
    return true;
  }

  /**
   * Consumers still running these attempts extend their leases — and say they hold them: a row
   * written again while its attempt was out (the run ended and was retried meanwhile) says unbegun,
   * and would otherwise be handed to a second consumer once it ran out, the first still running it.
   */
  renew(attempts: readonly { step_id: string; attempt: number }[], now: number): void {
    const held = this.#all();
    const renewed: [string, Lease][] = [];
    for (const a of attempts) {
      const l = held.get(a.step_id);
      // Never shortened: a renewal sent just before its attempt handed over arrives after it.
      if (l?.attempt === a.attempt)
        renewed.push([
          a.step_id,
          { attempt: a.attempt, until: Math.max(l.until, now + this.ttlMs), begun: true },
        ]);
    }
    this.#write(renewed);
  }

  /**
   * A deferred attempt (a child run started or found, a question recorded) handed over: its consumer
   * is done with it, and nobody renews its lease. It is held until `until` — the attempt's own
   * deadline, when the run times it out — so it is not sent again meanwhile; an attempt that never
   * got here (its consumer died in between) is sent again when its lease runs out, as any other.
   */
  handOver(stepId: string, attempt: number, until: number): void {
    const l = this.#all().get(stepId);
    if (l?.attempt === attempt) this.#write([[stepId, { attempt, until, begun: true }]]);
  }

  /** Ends an attempt's lease now, whoever holds it: it is being sent again, for a consumer to take. */
  lapse(stepId: string, attempt: number, now: number): void {
    const l = this.#all().get(stepId);
    if (l?.attempt === attempt) this.#write([[stepId, { attempt, until: now, begun: true }]]);
  }

  /**
   * Running queue attempts whose lease ran out (`running`: step id → attempt); `begun` false: no
   * consumer ever took it (sent to a queue nobody consumes, or one that far behind). Each gets a queued
   * lease again, as it is about to be sent again; a running attempt with no lease row gets one.
   * Rows of attempts no longer running go. `until`: when the lease ran out (the object's alarm was set
   * for then: a check long after it means the object was held meanwhile, untaken-attempts.ts).
   */
  expired(
    running: ReadonlyMap<string, number>,
    now: number,
  ): { step_id: string; attempt: number; begun: boolean; until: number }[] {
    const held = this.#all();
    const stale = [...held].filter(([id, l]) => running.get(id) !== l.attempt).map(([id]) => id);
    for (const id of stale) {
      this.sql.exec('DELETE FROM leases WHERE step_id = ?', id);
      held.delete(id);
    }
    const out: { step_id: string; attempt: number; begun: boolean; until: number }[] = [];
    const fresh: [string, Lease][] = [];
    for (const [step_id, attempt] of running) {
      const l = held.get(step_id);
      if (!l) fresh.push([step_id, { attempt, until: now + this.ttlMs, begun: false }]);
      else if (l.until <= now) {
        out.push({ step_id, attempt, begun: l.begun, until: l.until });
        fresh.push([step_id, { attempt, until: now + this.queuedMs, begun: false }]);
      }
    }
    this.#write(fresh);
    return out;
  }

  /** These steps' attempts are over (a result was recorded): their leases go. */
  release(stepIds: readonly string[]): void {
    const held = this.#all();
    const gone = stepIds.filter((id) => held.delete(id));
    for (let i = 0; i < gone.length; i += 90) {
      const chunk = gone.slice(i, i + 90);
      this.sql.exec(`DELETE FROM leases WHERE step_id IN (${chunk.map(() => '?').join(', ')})`, ...chunk);
    }
  }

  /** The run ended: no lease is wanted. */
  clear(): void {
    if (this.#table.exists) this.sql.exec('DELETE FROM leases');
    this.#held = new Map();
  }

  /** A transaction rolled back: what is cached may be ahead of storage. */
  forget(): void {
    this.#held = null;
    this.#table.forget();
  }

  /** When the next lease runs out, or null. */
  nextExpiry(): number | null {
    let min: number | null = null;
    for (const l of this.#all().values()) if (min === null || l.until < min) min = l.until;
    return min;
  }

  #all(): Map<string, Lease> {
    if (!this.#held) {
      this.#held = new Map();
      if (!this.#table.exists) return this.#held;
      for (const raw of this.sql.exec('SELECT step_id, attempt, until, begun FROM leases')) {
        const r = LeaseRow.parse(raw);
        this.#held.set(r.step_id, { attempt: r.attempt, until: r.until, begun: r.begun });
      }
    }
    return this.#held;
  }

  #write(rows: readonly [string, Lease][]): void {
    if (rows.length === 0) return;
    const held = this.#all();
    for (const [id, l] of rows) held.set(id, l);
    this.#table.ensure();
    insertMany(
      this.sql,
      'INSERT OR REPLACE INTO leases (step_id, attempt, until, begun) VALUES',
      '',
      rows.map(([id, l]) => [id, l.attempt, l.until, l.begun ? 1 : 0]),
    );
  }
}
