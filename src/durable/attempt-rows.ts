/**
 * A run's `attempts` rows: one per attempt, scheduled → invoked → succeeded | failed, written many a
 * statement. The attempt history the API lists, and what a deletion reads to find child runs.
 */
import { chunked, insertMany, sqlText, statementFor } from './sql-batch';

type Row = Record<string, SqlStorageValue>;

/** An attempt's new status and times: one by its key, or many joined with a list of `(key…, values…)`. */
const MARK_ONE = `UPDATE attempts SET status = ?3, invoked_at = coalesce(?4, invoked_at),
  finished_at = coalesce(?5, finished_at), error_code = coalesce(?6, error_code)
  WHERE step_id = ?1 AND attempt = ?2`;
const MARK_HEAD = `UPDATE attempts SET status = v.column3, invoked_at = coalesce(v.column4, attempts.invoked_at),
  finished_at = coalesce(v.column5, attempts.finished_at), error_code = coalesce(v.column6, attempts.error_code)
  FROM (VALUES`;
const MARK_TAIL = `) AS v WHERE attempts.step_id = v.column1 AND attempts.attempt = v.column2`;

/** A recorded attempt moving on: the new status and the times (and error) that go with it. */
export type AttemptMark = Pick<
  AttemptRow,
  'step_id' | 'attempt' | 'status' | 'invoked_at' | 'finished_at' | 'error_code'
>;

/** One row of `attempts`: scheduled → invoked → succeeded | failed. */
export type AttemptRow = {
  step_id: string;
  attempt: number;
  plan_version: number;
  action: string;
  idempotency_key: string;
  dispatch: string;
  status: 'scheduled' | 'invoked' | 'succeeded' | 'failed';
  scheduled_at: string;
  invoked_at: string | null;
  finished_at: string | null;
  error_code: string | null;
};

export class AttemptRows {
  constructor(private readonly sql: SqlStorage) {}

  /** New attempt rows; an attempt already recorded keeps its row. */
  put(rows: readonly AttemptRow[]): void {
    insertMany(
      this.sql,
      `INSERT OR IGNORE INTO attempts (step_id, attempt, plan_version, action, idempotency_key, dispatch, status,
       scheduled_at, invoked_at, finished_at, error_code) VALUES`,
      '',
      rows.map((a) => [
        a.step_id,
        a.attempt,
        a.plan_version,
        a.action,
        a.idempotency_key,
        a.dispatch,
        a.status,
        a.scheduled_at,
        a.invoked_at,
        a.finished_at,
        a.error_code,
      ]),
    );
  }

  /**
   * Moves recorded attempts on (invoked, then succeeded or failed), many a statement — one by its key
   * (a chain's every step: a third of the cost of joining a one-row list).
   */
  mark(marks: readonly AttemptMark[]): void {
    chunked(marks, 6, (chunk) =>
      this.sql.exec(
        chunk.length === 1 ? MARK_ONE : statementFor(MARK_HEAD, chunk.length, 6, MARK_TAIL),
        ...chunk.flatMap((m) => [m.step_id, m.attempt, m.status, m.invoked_at, m.finished_at, m.error_code]),
      ),
    );
  }

  list(stepId?: string): Row[] {
    return stepId === undefined
      ? this.sql.exec<Row>('SELECT * FROM attempts ORDER BY step_id, attempt').toArray()
      : this.sql.exec<Row>('SELECT * FROM attempts WHERE step_id = ? ORDER BY attempt', stepId).toArray();
  }

  /** The attempts (step and number) that called one of `actions`. */
  ofActions(actions: readonly string[]): { step_id: string; attempt: number }[] {
    return this.sql
      .exec<Row>(
        `SELECT step_id, attempt FROM attempts WHERE action IN (${actions.map(() => '?').join(', ')})`,
        ...actions,
      )
      .toArray()
      .map((r) => ({ step_id: sqlText(r.step_id), attempt: Number(r.attempt) }));
  }
}
