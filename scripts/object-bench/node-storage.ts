/**
 * A run object's storage for the object bench, on Node's built-in SQLite (the same engine a Durable
 * Object's storage runs): `sql.exec` with a statement cache per object, as workerd keeps one, and
 * `transactionSync` as a savepoint. Alarms, `waitUntil` and sockets do nothing — the bench measures the
 * object's own code, not the runtime around it.
 */
type Row = Record<string, SqlStorageValue>;
type Statement = {
  columns(): unknown[];
  all(...params: unknown[]): Row[];
  run(...params: unknown[]): { changes: number | bigint };
};
type Database = { exec(sql: string): void; prepare(sql: string): Statement; close(): void };
type SqliteModule = { DatabaseSync: new (path: string) => Database };
type NodeProcess = { getBuiltinModule(id: string): unknown };

const sqlite = (process as unknown as NodeProcess).getBuiltinModule('node:sqlite') as SqliteModule;

/** A cursor over rows already read (every statement the store runs is read to its end). */
function cursor(rows: Row[], written: number) {
  const it = rows[Symbol.iterator]();
  return {
    toArray: () => rows,
    one: () => {
      if (rows.length !== 1) throw new Error(`Expected exactly one row, got ${rows.length}`);
      return rows[0]!;
    },
    raw: () => rows.map((r) => Object.values(r))[Symbol.iterator](),
    next: () => it.next(),
    [Symbol.iterator]: () => it,
    columnNames: rows[0] ? Object.keys(rows[0]) : [],
    rowsRead: rows.length,
    rowsWritten: written,
  };
}

/** One object's database: the state to construct a PlanRun with, and how many statements it compiled. */
export function nodeObjectState(): { state: DurableObjectState; compiled: () => number; close: () => void } {
  const db = new sqlite.DatabaseSync(':memory:');
  const statements = new Map<string, Statement>();
  let depth = 0;
  const sql = {
    exec(query: string, ...bindings: unknown[]) {
      // A schema (several statements, no bindings) runs as a script.
      if (bindings.length === 0 && /;\s*\S/.test(query.trim().replace(/;\s*$/, ''))) {
        db.exec(query);
        return cursor([], 0);
      }
      let st = statements.get(query);
      if (!st) {
        st = db.prepare(query);
        statements.set(query, st);
      }
      const params = bindings.map((v) => (v === undefined ? null : v));
      if (st.columns().length > 0) return cursor(st.all(...params), 0);
      return cursor([], Number(st.run(...params).changes));
    },
  };
  const storage = {
    sql,
    transactionSync<T>(fn: () => T): T {
      const name = `sp${depth++}`;
      db.exec(`SAVEPOINT ${name}`);
      try {
        const out = fn();
        db.exec(`RELEASE ${name}`);
        return out;
      } catch (err) {
        db.exec(`ROLLBACK TO ${name}`);
        db.exec(`RELEASE ${name}`);
        throw err;
      } finally {
        depth--;
      }
    },
    getAlarm: () => Promise.resolve(null),
    setAlarm: () => Promise.resolve(),
    deleteAlarm: () => Promise.resolve(),
  };
  const state = {
    id: { toString: () => 'bench', name: 'bench' },
    storage,
    waitUntil: () => undefined,
    blockConcurrencyWhile: <T>(fn: () => Promise<T>) => fn(),
    getWebSockets: () => [],
  } as unknown as DurableObjectState;
  return { state, compiled: () => statements.size, close: () => db.close() };
}
