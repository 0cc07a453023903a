import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/events';
import type { AttemptRow } from '../../src/durable/attempt-rows';
import { SqlStore } from '../../src/durable/sql-store';
import { STORE_SCHEMA } from '../../src/durable/store-tables';

/** An event's envelope as the log stores it (its schema is checked when read back). */
const envelope = (seq: number) => ({
  event_id: `evt_${seq}`,
  seq,
  timestamp: '2026-01-01T00:00:00.000Z',
  actor: 'test',
});

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
const utf8 = (s: string) => new TextEncoder().encode(s).length;

describe('SqlStore', () => {
  it('spills a large output into chunks, reads it back, and drops the chunks when it is replaced', async () => {
    await withStore((store, sql) => {
      store.setOutput('a', big('x'));
      expect(count(sql, 'blobs')).toBeGreaterThan(0);
      expect(store.getOutput('a')).toEqual({ found: true, value: big('x') });
      store.flushOutputs(); // the decision ends
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
      store.flushOutputs();
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

  it("a new run's store reads nothing before it writes: no value can have spilled, nothing is counted", async () => {
    const stub = env.PLAN_RUN.getByName(`sql-store-fresh-${Date.now()}-${++n}`);
    await runInDurableObject(stub, (_instance, state) => {
      const real = state.storage.sql;
      const queries: string[] = [];
      const sql = new Proxy(real, {
        get(target, prop) {
          if (prop === 'exec')
            return (query: string, ...bindings: SqlStorageValue[]) => {
              queries.push(query.trim());
              return target.exec(query, ...bindings);
            };
          const value: unknown = Reflect.get(target, prop);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      // As a new run's object does (run-schema.ts): no tables, then the run's, then its first writes.
      const store = new SqlStore(sql, { createTables: false });
      real.exec(STORE_SCHEMA);
      store.tablesCreated(true);
      queries.length = 0;
      store.setOutput('a', { x: 1 });
      store.setOutput('b', { text: 'y'.repeat(600 * 1024) }); // spills into chunks
      store.setMetaValue('run_input', { q: 1 });
      store.flushOutputs();
      expect(queries.filter((q) => /^SELECT/i.test(q))).toEqual([]);
      expect(new SqlStore(real).getOutput('b')).toEqual({
        found: true,
        value: { text: 'y'.repeat(600 * 1024) },
      });
    });
  });

  it("writes a decision's outputs together when it ends, reading them back from memory before", async () => {
    await withStore((store, sql) => {
      for (let i = 0; i < 60; i++) store.setOutput(`s${i}`, { i });
      store.setOutput('large', big('x'));
      // Not written yet: read back from memory, and a row would be a second instance's to see.
      expect(count(sql, 'outputs')).toBe(0);
      expect(store.getOutput('s7')).toEqual({ found: true, value: { i: 7 } });
      expect(store.getOutput('large')).toEqual({ found: true, value: big('x') });
      store.flushOutputs();
      expect(count(sql, 'outputs')).toBe(61);
      const again = new SqlStore(sql);
      expect(again.getOutput('s59')).toEqual({ found: true, value: { i: 59 } });
      expect(again.getOutput('large')).toEqual({ found: true, value: big('x') });
      // Replacing and deleting work on written outputs and on outputs still waiting alike.
      store.setOutput('s1', 'one');
      store.setOutput('s2', 'two');
      store.deleteOutput('s2');
      store.deleteOutput('s3');
      store.flushOutputs();
      expect(new SqlStore(sql).getOutput('s1')).toEqual({ found: true, value: 'one' });
      expect(new SqlStore(sql).getOutput('s2')).toEqual({ found: false });
      expect(new SqlStore(sql).getOutput('s3')).toEqual({ found: false });
      expect(count(sql, 'outputs')).toBe(59);
    });
  });

  it('writes many events and attempts in multi-row statements within the parameter limit', async () => {
    await withStore((store) => {
      const events = Array.from(
        { length: 130 },
        (_, i) =>
          ({
            ...envelope(i + 1),
            event_type: 'StepStreamed',
            references: { step_id: `s${i}` },
            payload: { i },
          }) as unknown as RunEvent,
      );
      store.events.append(events);
      expect(store.events.read(0, 1000).map((e) => e.seq)).toEqual(events.map((e) => e.seq));
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
      store.attempts.put(rows);
      store.attempts.mark(
        rows.map((r, i) => ({
          step_id: r.step_id,
          attempt: 1,
          status: i % 2 ? 'failed' : 'invoked',
          invoked_at: i % 2 ? null : 't1',
          finished_at: i % 2 ? 't2' : null,
          error_code: i % 2 ? 'boom' : null,
        })),
      );
      const after = store.attempts.list();
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
      // One attempt moving on alone (a chain's every step) keeps what it does not set, like many do.
      store.attempts.mark([
        {
          step_id: 's0',
          attempt: 1,
          status: 'succeeded',
          invoked_at: null,
          finished_at: 't3',
          error_code: null,
        },
      ]);
      expect(store.attempts.list('s0')).toEqual([
        expect.objectContaining({
          status: 'succeeded',
          invoked_at: 't1',
          finished_at: 't3',
          scheduled_at: 't0',
        }),
      ]);
      expect(store.attempts.list('s2')[0]).toMatchObject({ status: 'invoked', finished_at: null });
      store.putSteps(Array.from({ length: 120 }, (_, i) => [`s${i}`, { i }] as const));
      expect([...store.steps()]).toHaveLength(120);
    });
  });

  it('pages events by bytes as well as count, reading sizes from the rows, a large event alone', async () => {
    await withStore((store) => {
      const event = (seq: number, text: string) =>
        ({
          ...envelope(seq),
          event_type: 'InputReceived',
          references: {},
          payload: { input: text },
        }) as unknown as RunEvent;
      store.events.append([event(1, 'a'), event(2, 'é'.repeat(700 * 1024)), event(3, 'b'), event(4, 'c')]);
      const sizes = [1, 2, 3, 4].map((seq) => utf8(JSON.stringify(store.events.read(seq - 1, 1)[0])));
      // Event 2 (1.4 MB, stored in chunks) fits no page of 1 MiB with another event: it comes alone.
      const first = store.events.page(0, 10, 1024 * 1024);
      expect(first).toMatchObject({ sizes: [sizes[0]], has_more: true });
      expect(first.events.map((e) => e.seq)).toEqual([1]);
      const second = store.events.page(1, 10, 1024 * 1024);
      expect(second.events.map((e) => e.seq)).toEqual([2]);
      expect(second.sizes).toEqual([sizes[1]]);
      const rest = store.events.page(2, 10, 1024 * 1024);
      expect(rest).toMatchObject({ sizes: [sizes[2], sizes[3]], has_more: false });
      expect(store.events.page(0, 2, 8 * 1024 * 1024).events.map((e) => e.seq)).toEqual([1, 2]);
      expect([...store.events.stream(0)].map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    });
  });

  it('keeps JSON values in meta, in chunks when large, and knows output sizes without reading them', async () => {
    await withStore((store, sql) => {
      store.setMetaValue('run_final_output', big('f'));
      expect(count(sql, 'blobs')).toBeGreaterThan(0);
      expect(new SqlStore(sql).getMetaValue('run_final_output')).toEqual({ found: true, value: big('f') });
      store.setMetaValue('run_final_output', null);
      expect(count(sql, 'blobs')).toBe(0);
      expect(store.getMetaValue('nothing')).toEqual({ found: false });
      store.setOutput('small', { a: 'é' });
      store.setOutput('large', big('x'));
      store.flushOutputs();
      expect(store.outputSizes()).toEqual(
        new Map([
          ['small', utf8(JSON.stringify({ a: 'é' }))],
          ['large', utf8(JSON.stringify(big('x')))],
        ]),
      );
    });
  });
});
