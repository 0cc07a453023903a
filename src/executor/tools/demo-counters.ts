/**
 * The Durable Object behind `demo.counter` and `demo.flaky`: durable counts shared by every isolate.
 * `demo.counter` is the side-effect witness of the exactly-once tests, so an increment is applied at
 * most once per idempotency key — the dedupe row and the new value are written in one transaction.
 */
import { DurableObject } from 'cloudflare:workers';

/** What {@link DemoCounters.increment} returns; `duplicate` when the key had already been applied. */
export type IncrementResult = { value: number; duplicate: boolean };

export class DemoCounters extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Idempotent DDL, synchronous: nothing can run before it.
    ctx.storage.sql.exec(`
      CREATE TABLE IF NOT EXISTS counters (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS counter_applied (
        key TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        value INTEGER NOT NULL,
        applied_at TEXT NOT NULL,
        PRIMARY KEY (key, idempotency_key)
      );
      CREATE TABLE IF NOT EXISTS flaky_attempts (key TEXT PRIMARY KEY, attempts INTEGER NOT NULL);
    `);
  }

  /** Adds one to `key` unless `idempotencyKey` was already applied to it; then returns that result. */
  increment(key: string, idempotencyKey: string): IncrementResult {
    const sql = this.ctx.storage.sql;
    return this.ctx.storage.transactionSync(() => {
      const seen = sql
        .exec<{ value: number }>(
          'SELECT value FROM counter_applied WHERE key = ? AND idempotency_key = ?',
          key,
          idempotencyKey,
        )
        .toArray()[0];
      if (seen) return { value: seen.value, duplicate: true };
      const { value } = sql
        .exec<{ value: number }>(
          `INSERT INTO counters (key, value) VALUES (?, 1)
           ON CONFLICT (key) DO UPDATE SET value = value + 1 RETURNING value`,
          key,
        )
        .one();
      sql.exec(
        'INSERT INTO counter_applied (key, idempotency_key, value, applied_at) VALUES (?, ?, ?, ?)',
        key,
        idempotencyKey,
        value,
        new Date().toISOString(),
      );
      return { value, duplicate: false };
    });
  }

  /** The counter's current value; 0 when it was never incremented. */
  get(key: string): number {
    const row = this.ctx.storage.sql
      .exec<{ value: number }>('SELECT value FROM counters WHERE key = ?', key)
      .toArray()[0];
    return row?.value ?? 0;
  }

  /** Records one more attempt of `demo.flaky` for `key` and returns its number (1 for the first). */
  flakyAttempt(key: string): number {
    return this.ctx.storage.sql
      .exec<{ attempts: number }>(
        `INSERT INTO flaky_attempts (key, attempts) VALUES (?, 1)
         ON CONFLICT (key) DO UPDATE SET attempts = attempts + 1 RETURNING attempts`,
        key,
      )
      .one().attempts;
  }
}
