import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/events';
import { SqlStore, type AttemptRow } from '../../src/durable/sql-store';

let n = 0;
/** A fresh object's SQLite, with the run schema, for each test. */
async function withStore<T>(fn: (store: SqlStore, sql: SqlStorage, storage: DurableObjectStorage) => T) {
  const stub = env.PLAN_RUN.getByName(`sql-store-${Date.now()}-${++n}`);
  return runInDurableObject(stub, (_instance, state) =>
    fn(new SqlStore(state.storage.sql), state.storage.sql, state.storage),
  );
}

const count = (sql: SqlStorage, table: string) =>
  Number(sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n);

const big = (c: string) => ({ text: c.repeat(600 * 1024) });

describe('SqlStore', () => {
  it('spills a large output into chunks, reads it back, and drops the chunks when it is replaced', async () => {
    await withStore((store, sql) => {
      store.setOutput('a', big('x'));
      expect(count(sql, 'blobs')).toBeGreaterThan(0);
      expect(store.getOutput('a')).toEqual({ found: true, value: big('x') });
      // A second instance (the object woken after an eviction) knows which rows are spilled.
      const again = new SqlStore(sql);
      again.setOutput('a', 'small');
      expect(count(sql, 'blobs')).toBe(0);
      expect(again.getOutput('a')).toEqual({ found: true, value: 'small' });
      again.setVar('v', big('y'));
      again.setVar('v', big('z'));
      expect(again.getVar('v')).toEqual({ found: true, value: big('z') });
      again.deleteOutput('a');
      again.setVar('v', 1);
      expect(count(sql, 'blobs')).toBe(0);
      expect(again.getOutput('a')).toEqual({ found: false });
    });
  });

  it('returns a value that looks like a chunk reference as itself', async () => {
    await withStore((store) => {
      store.setOutput('a', { $blob: 'b1' });
      store.setVar('v', { $blob: 'nothing' });
      expect(store.getOutput('a')).toEqual({ found: true, value: { $blob: 'b1' } });
      expect(store.getVar('v')).toEqual({ found: true, value: { $blob: 'nothing' } });
    });
  });

  it('forgets what a rolled-back transaction did, so no chunks are left behind', async () => {
    await withStore((store, sql, storage) => {
      store.setOutput('a', big('x'));
      expect(() =>
        storage.transactionSync(() => {
          store.setOutput('a', 'replaced'); // drops the chunks, then rolls back with them
          throw new Error('boom');
        }),
      ).toThrow('boom');
      store.forgetCached();
      expect(store.getOutput('a')).toEqual({ found: true, value: big('x') });
      store.setOutput('a', 'small');
      expect(count(sql, 'blobs')).toBe(0);
    });
  });

  it('writes many events and attempts in multi-row statements within the parameter limit', async () => {
    await withStore((store) => {
      const events = Array.from(
        { length: 130 },
        (_, i) =>
          ({
            seq: i + 1,
            event_type: 'StepStreamed',
            references: { step_id: `s${i}` },
            payload: { i },
          }) as unknown as RunEvent,
      );
      store.appendEvents(events);
      expect(store.events(0, 1000).map((e) => e.seq)).toEqual(events.map((e) => e.seq));
      const rows: AttemptRow[] = Array.from({ length: 40 }, (_, i) => ({
        step_id: `s${i}`,
        attempt: 1,
        plan_version: 1,
        action: 'demo.echo',
        idempotency_key: `r:s${i}:1`,
        dispatch: 'queue',
        status: 'scheduled',
        scheduled_at: 't0',
        invoked_at: null,
        finished_at: null,
        error_code: null,
      }));
      store.putAttempts(rows);
      store.markAttempts(
        rows.map((r, i) => ({
          step_id: r.step_id,
          attempt: 1,
          status: i % 2 ? 'failed' : 'invoked',
          invoked_at: i % 2 ? null : 't1',
          finished_at: i % 2 ? 't2' : null,
          error_code: i % 2 ? 'boom' : null,
        })),
      );
      const after = store.attempts();
      expect(after).toHaveLength(40);
      for (const a of after) {
        const i = Number((a.step_id as string).slice(1));
        expect(a).toMatchObject(
          i % 2
            ? {
                status: 'failed',
                invoked_at: null,
                finished_at: 't2',
                error_code: 'boom',
                scheduled_at: 't0',
              }
            : { status: 'invoked', invoked_at: 't1', finished_at: null, error_code: null },
        );
      }
      store.putSteps(Array.from({ length: 120 }, (_, i) => [`s${i}`, { i }] as const));
      expect([...store.steps()]).toHaveLength(120);
    });
  });
});
