/**
 * A run's event log: its `events` rows, appended many a statement and read back through the
 * envelope's schema (row-schemas.ts) — by type, by page (bounded by count and stored bytes), or as a
 * stream. A body too large for a row is spilled into chunks (spilled-values.ts).
 */
import type { EventType, RunEvent } from '../engine/events';
import { eventJson } from './plan-text';
import { parseEventRow } from './row-schemas';
import { insertMany, sqlText } from './sql-batch';
import { STORED_BYTES, type SpilledValues } from './spilled-values';

type Row = Record<string, SqlStorageValue>;

/** A page of the event log, with each event's stored size in bytes. */
export type EventPage = { events: RunEvent[]; sizes: number[]; has_more: boolean };

/** How much stored event JSON {@link EventLog.stream} reads at a time. */
const STREAM_PAGE_BYTES = 4 * 1024 * 1024;

export class EventLog {
  constructor(
    private readonly sql: SqlStorage,
    private readonly spill: SpilledValues,
  ) {}

  /** Appends events, many rows a statement: a statement costs more than a row. */
  append(events: readonly RunEvent[]): void {
    insertMany(
      this.sql,
      'INSERT INTO events (seq, event_type, step_id, body) VALUES',
      '',
      events.map((e) => [e.seq, e.event_type, e.references.step_id ?? null, this.spill.pack(eventJson(e))]),
    );
  }

  /** Every event of one type, oldest first (a scan of the log: for rare reads only). */
  ofType<T extends EventType>(type: T): RunEvent<T>[] {
    return this.sql
      .exec<Row>('SELECT seq, body FROM events WHERE event_type = ? ORDER BY seq', type)
      .toArray()
      .map((r) => this.#event(r) as RunEvent<T>);
  }

  /**
   * Events of one type with seq > `after` (and ≤ `upTo`), oldest first — a scan of the log's tail, for
   * rare reads (what an approval waits on).
   */
  ofTypeAfter<T extends EventType>(type: T, after: number, upTo = Number.MAX_SAFE_INTEGER): RunEvent<T>[] {
    return this.sql
      .exec<Row>(
        'SELECT seq, body FROM events WHERE event_type = ? AND seq > ? AND seq <= ? ORDER BY seq',
        type,
        after,
        upTo,
      )
      .toArray()
      .map((r) => this.#event(r) as RunEvent<T>);
  }

  /** The last event of one type (with seq ≤ `upTo`), or null: read from the end of the log. */
  lastOfType<T extends EventType>(type: T, upTo = Number.MAX_SAFE_INTEGER): RunEvent<T> | null {
    const row = this.sql
      .exec<Row>(
        'SELECT seq, body FROM events WHERE event_type = ? AND seq <= ? ORDER BY seq DESC LIMIT 1',
        type,
        upTo,
      )
      .toArray()[0];
    return row ? (this.#event(row) as RunEvent<T>) : null;
  }

  /** Events with seq > after, oldest first, at most `limit`. */
  read(after: number, limit: number, upTo?: number): RunEvent[] {
    const rows =
      upTo === undefined
        ? this.sql.exec<Row>('SELECT seq, body FROM events WHERE seq > ? ORDER BY seq LIMIT ?', after, limit)
        : this.sql.exec<Row>(
            'SELECT seq, body FROM events WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?',
            after,
            upTo,
            limit,
          );
    return rows.toArray().map((r) => this.#event(r));
  }

  /** An event row read back: its JSON, through the envelope's schema (row-schemas.ts). */
  #event(r: Row): RunEvent {
    const seq = Number(r.seq);
    return parseEventRow(seq, this.spill.unpack(sqlText(r.body), `event ${seq}`));
  }

  /**
   * Events with seq > after (and ≤ upTo), oldest first: at most `limit` of them and, past the first,
   * at most `maxBytes` of stored JSON — so a page of large events stays small. Sizes are read before
   * any body is, and come back with the events.
   */
  page(after: number, limit: number, maxBytes: number, upTo?: number): EventPage {
    const bound = upTo === undefined ? '' : ' AND seq <= ?';
    const args = upTo === undefined ? [after, limit + 1] : [after, upTo, limit + 1];
    const sizes = this.sql
      .exec<Row>(
        `SELECT seq, ${STORED_BYTES('body')} AS n FROM events WHERE seq > ?${bound} ORDER BY seq LIMIT ?`,
        ...args,
      )
      .toArray()
      .map((r) => Number(r.n));
    let taken = 0;
    let bytes = 0;
    while (taken < Math.min(limit, sizes.length) && (taken === 0 || bytes + sizes[taken]! <= maxBytes)) {
      bytes += sizes[taken]!;
      taken++;
    }
    const events = taken === 0 ? [] : this.read(after, taken, upTo);
    return { events, sizes: sizes.slice(0, taken), has_more: sizes.length > taken };
  }

  /**
   * Every event from `after` on, a page at a time (at most `page` events and about 4 MiB), so a long
   * log — or one of large events — is never in memory at once.
   */
  *stream(after = 0, upTo?: number, page = 500): Generator<RunEvent> {
    let cursor = after;
    for (;;) {
      const batch = this.page(cursor, page, STREAM_PAGE_BYTES, upTo);
      for (const e of batch.events) yield e;
      if (!batch.has_more || batch.events.length === 0) return;
      cursor = batch.events[batch.events.length - 1]!.seq;
    }
  }

  lastSeq(): number {
    const row = this.sql.exec<Row>('SELECT MAX(seq) AS s FROM events').toArray()[0];
    return row?.s == null ? 0 : Number(row.s);
  }
}
