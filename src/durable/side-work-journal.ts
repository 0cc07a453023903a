/**
 * Side work as rows (issue 10): every piece of work a decision asks for beyond running steps —
 * planning, a revision, a judge's verdict, an approval webhook, a child run's report to its parent —
 * is a row written in the same transaction as the decision, with a token for this issue of it and the
 * time it is due back. An answer counts only while its row still carries its token, so a late answer
 * from a superseded issue is dropped; the run's alarm re-issues rows whose work is overdue or was lost
 * with its instance.
 */
import { z } from 'zod';
import { LazyTable } from './lazy-table';

/**
 * The model's tokens the issues of a planning or revision row have spent so far, added as each call is
 * answered: an issue lost with its instance spent them too, and the issue that answers counts them.
 */
export type Spent = { prompt: number; completion: number };

/** The work a row stands for: a machine command, or a child run's report to its parent. */
export type SideTask =
  | { type: 'plan'; spent?: Spent }
  | { type: 'revise'; trigger: string; reason: string; step_id?: string; strategy: string; spent?: Spent }
  | { type: 'judge'; step_id: string; expected: string }
  | { type: 'approval_requested'; deadline_at: number | null; link?: string }
  | { type: 'report_parent' };

/**
 * `parked`: waiting for `due_at` to start (a webhook's next attempt, a report's retry); otherwise its
 * work was started and `due_at` is its deadline — a row not parked that no live instance is running
 * was lost with an instance.
 */
export type SideRow = {
  id: string;
  task: SideTask;
  token: string;
  issued: number;
  due_at: number;
  parked: boolean;
};

const SpentSchema = z.object({ prompt: z.number(), completion: z.number() });

const TaskSchema = z.union([
  z.object({ type: z.literal('plan'), spent: SpentSchema.optional() }),
  z.object({
    type: z.literal('revise'),
    trigger: z.string(),
    reason: z.string(),
    step_id: z.string().optional(),
    strategy: z.string(),
    spent: SpentSchema.optional(),
  }),
  z.object({ type: z.literal('judge'), step_id: z.string(), expected: z.string() }),
  z.object({
    type: z.literal('approval_requested'),
    deadline_at: z.number().nullable(),
    link: z.string().optional(),
  }),
  z.object({ type: z.literal('report_parent') }),
]);

const RowSchema = z.object({
  id: z.string(),
  task: z.string().transform((t, ctx) => {
    const parsed = TaskSchema.safeParse(JSON.parse(t));
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: `side_work task: ${parsed.error.message}` });
      return z.NEVER;
    }
    return parsed.data;
  }),
  token: z.string(),
  issued: z.number().int(),
  due_at: z.number(),
  parked: z.number().transform((p) => p === 1),
});

/** `task`, with what `replaced` spent when `task` says nothing of its own (a new decision's task). */
function withSpentOf(task: SideTask, replaced: SideTask | undefined): SideTask {
  if (task.type !== 'plan' && task.type !== 'revise') return task;
  if (task.spent || !replaced || replaced.type !== task.type || !replaced.spent) return task;
  return { ...task, spent: replaced.spent };
}

/** One row per kind of work; a judge per step. */
export function sideWorkId(task: SideTask): string {
  return task.type === 'judge' ? `judge:${task.step_id}` : task.type;
}

/** The journal's table. */
const SIDE_WORK_SCHEMA = `CREATE TABLE IF NOT EXISTS side_work (
  id TEXT PRIMARY KEY, task TEXT NOT NULL, token TEXT NOT NULL,
  issued INTEGER NOT NULL, due_at INTEGER NOT NULL, parked INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;`;

export class SideWorkJournal {
  /**
   * {@link summary}'s answer, kept until a row changes: the object asks after every decision (a chain
   * of instant steps, once a step), and rows change only with side work.
   */
  #summary: { nextDue: number | null; started: boolean } | null = null;

  /** Its table is created with the first row (lazy-table.ts). */
  readonly #table: LazyTable;

  constructor(private readonly sql: SqlStorage) {
    this.#table = new LazyTable(sql, 'side_work', SIDE_WORK_SCHEMA);
  }

  /** A new run's object: the table does not exist yet. */
  fresh(): void {
    this.#table.absent();
  }

  /**
   * Writes (or re-issues) a row: a new token, one more issue, due at `dueAt`. A planning or revision
   * that replaces one still running (a new decision asked for it again) keeps what that one spent: the
   * abandoned issue's answer is dropped, but its model calls were made.
   */
  issue(task: SideTask, dueAt: number): SideRow {
    const id = sideWorkId(task);
    const before = this.get(id);
    const row: SideRow = {
      id,
      task: withSpentOf(task, before?.task),
      token: crypto.randomUUID(),
      issued: (before?.issued ?? 0) + 1,
      due_at: dueAt,
      parked: false,
    };
    this.#summary = null;
    this.#table.ensure();
    this.sql.exec(
      'INSERT OR REPLACE INTO side_work (id, task, token, issued, due_at, parked) VALUES (?, ?, ?, ?, ?, 0)',
      row.id,
      JSON.stringify(row.task),
      row.token,
      row.issued,
      row.due_at,
    );
    return row;
  }

  get(id: string): SideRow | null {
    if (!this.#table.exists) return null;
    const raw = this.sql
      .exec('SELECT id, task, token, issued, due_at, parked FROM side_work WHERE id = ?', id)
      .toArray();
    return raw[0] ? RowSchema.parse(raw[0]) : null;
  }

  all(): SideRow[] {
    if (!this.#table.exists) return [];
    return this.sql
      .exec('SELECT id, task, token, issued, due_at, parked FROM side_work ORDER BY due_at')
      .toArray()
      .map((r) => RowSchema.parse(r));
  }

  /** Whether `token` is still the current issue of row `id`. */
  current(id: string, token: string): boolean {
    return this.get(id)?.token === token;
  }

  /** Parks the row until `dueAt` (its work tried again then); `task` replaces what it records. */
  park(id: string, token: string, dueAt: number, task: SideTask): void {
    this.#summary = null;
    if (!this.#table.exists) return;
    this.sql.exec(
      'UPDATE side_work SET due_at = ?, task = ?, parked = 1 WHERE id = ? AND token = ?',
      dueAt,
      JSON.stringify(task),
      id,
      token,
    );
  }

  /**
   * Records what the running issue settled that a re-issue must reuse (an approval link minted before
   * its first send), the row left running; nothing when `token` is no longer the current issue.
   */
  retask(id: string, token: string, task: SideTask): void {
    if (!this.#table.exists) return;
    this.sql.exec(
      'UPDATE side_work SET task = ? WHERE id = ? AND token = ?',
      JSON.stringify(task),
      id,
      token,
    );
  }

  /**
   * Adds a model call's tokens to what the planning or revision row has spent, while `token` is its
   * current issue (a superseded issue's answer is dropped, and so are its calls).
   */
  spend(id: string, token: string, tokens: Spent): void {
    const row = this.get(id);
    if (row?.token !== token || (row.task.type !== 'plan' && row.task.type !== 'revise')) return;
    const was = row.task.spent ?? { prompt: 0, completion: 0 };
    const spent = { prompt: was.prompt + tokens.prompt, completion: was.completion + tokens.completion };
    this.retask(id, token, { ...row.task, spent });
  }

  /** The work answered: the row goes. */
  done(id: string, token: string): void {
    this.#summary = null;
    if (this.#table.exists) this.sql.exec('DELETE FROM side_work WHERE id = ? AND token = ?', id, token);
  }

  /** Drops rows whatever their issue (the run ended: nobody wants their answers). */
  drop(ids: readonly string[]): void {
    this.#summary = null;
    if (ids.length === 0 || !this.#table.exists) return;
    for (const id of ids) this.sql.exec('DELETE FROM side_work WHERE id = ?', id);
  }

  /** The earliest due time, and whether any row's work was started (not parked) — one query. */
  summary(): { nextDue: number | null; started: boolean } {
    if (this.#summary) return this.#summary;
    if (!this.#table.exists) {
      this.#summary = { nextDue: null, started: false };
      return this.#summary;
    }
    const r = this.sql
      .exec<{ at: number | null; started: number | null }>(
        'SELECT MIN(due_at) AS at, SUM(parked = 0) AS started FROM side_work',
      )
      .one();
    this.#summary = { nextDue: r.at ?? null, started: (r.started ?? 0) > 0 };
    return this.#summary;
  }

  /** After a rolled-back transaction: the rows may no longer be what was remembered. */
  forgetCached(): void {
    this.#summary = null;
    this.#table.forget();
  }
}
