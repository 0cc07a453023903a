/**
 * One decision of a run's object and everything it writes, in one SQLite transaction: the machine
 * decides on the inputs; the attempts it schedules are queued, handed to the reporting consumer, or
 * begun inline (`ToolInvoked` recorded in this same transaction, so a sequential step costs one); the
 * leases follow the attempts; the side work it asks for gets a row each, and a side-work answer's own
 * row is settled; the events, step rows and outputs are persisted. Deciding writes outputs and state
 * variables as it folds results in, so they land with the events (and a write costs a fraction of an
 * implicit transaction's).
 *
 * Nothing is acted on here: what comes back is carried out by the caller once the transaction is
 * written (run-driver.ts), so nothing acts on unsaved state.
 */
import type { MachineInput, RunMachine } from '../engine/machine';
import { decide } from '../engine/run-loop';
import type { BeginStep } from './begin-attempt';
import type { Handoff } from './call-limits';
import type { Leases } from './leases';
import type { StepMessage } from './messages';
import { persist } from './persist';
import { DurableSideWork, type RowAfter } from './side-work';
import { DecisionFault } from './decision-fault';
import type { SideRow, SideWorkJournal } from './side-work-journal';
import { chargeUnsettled } from './spent-tokens';
import type { SqlStore } from './sql-store';

/** A decision's outcome: its events, side work, a refusal or an abort (engine/run-loop.ts). */
export type Decision = ReturnType<typeof decide>;

/** An attempt begun in the decision's transaction, for the object to run itself. */
export type InlineStart = { stepId: string; attempt: number; begin: Extract<BeginStep, { proceed: true }> };

/** What the object keeps and writes through. */
export type CommitParts = {
  storage: DurableObjectStorage;
  store: SqlStore;
  journal: SideWorkJournal;
  leases: Leases;
  /** Begins an attempt: checks it is still wanted and records `ToolInvoked` (begin-attempt.ts). */
  begin(stepId: string, attempt: number, pending: MachineInput[]): BeginStep;
  /** Whether the run is a child run whose parent waits for its result. */
  hasParent(): boolean;
};

export type CommitOptions = {
  /** Adds inputs computed against the live machine, inside the transaction. */
  extra?: (inputs: MachineInput[]) => void;
  /** A reporting consumer's room for steps these results make ready (they come back begun). */
  handoff?: Handoff;
  /** A side-work answer: its row is settled with the decision, or the answer dropped if superseded. */
  answer?: { row: SideRow; after: RowAfter };
};

/** The decision and what it asks the object to do; null when a superseded answer was dropped. */
export type Committed = { decided: Decision; queued: StepMessage[]; inline: InlineStart[]; rows: SideRow[] };

/**
 * Decides and writes, in one transaction; throws (rolled back) when a write fails, and a
 * {@link DecisionFault} when deciding did.
 */
export function commitDecision(
  parts: CommitParts,
  m: RunMachine,
  inputs: MachineInput[],
  opts: CommitOptions,
  now: number,
): Committed | null {
  const { store, journal, leases } = parts;
  const { handoff, answer } = opts;
  const queued: StepMessage[] = [];
  const inline: InlineStart[] = [];
  const rows: SideRow[] = [];
  let decided: Decision | null = null;
  parts.storage.transactionSync(() => {
    // A late answer from a superseded issue of the work (or work the run no longer wants): dropped.
    if (answer && !journal.current(answer.row.id, answer.row.token)) return;
    const pre: MachineInput[] = [];
    opts.extra?.(pre);
    const all = [...inputs, ...pre];
    const d = decidedOrFault(all, () =>
      decide(m, all, (c, pending) => {
        if (c.mode === 'queue' && handoff?.wants()) {
          const begin = parts.begin(c.step_id, c.attempt, pending);
          if (begin.proceed) {
            leases.take(c.step_id, c.attempt, now, true);
            handoff.take({ step_id: c.step_id, attempt: c.attempt, ...begin });
          }
        } else if (c.mode === 'queue') {
          const version = m.state.plan?.version ?? 1;
          queued.push({
            run_id: m.state.run_id,
            step_id: c.step_id,
            attempt: c.attempt,
            plan_version: version,
          });
        } else {
          const begin = parts.begin(c.step_id, c.attempt, pending);
          if (begin.proceed) inline.push({ stepId: c.step_id, attempt: c.attempt, begin });
        }
      }),
    );
    decided = d;
    leases.queued(
      queued.map((q) => ({ ...q, deadline_at: m.state.steps.get(q.step_id)?.deadline_at })),
      now,
    );
    const ended = d.events.some((e) => e.event_type === 'RunTerminated');
    // An attempt with a result needs no lease any more (nor does any, once the run ended).
    if (ended) leases.clear();
    else
      leases.release(d.events.flatMap((e) => (e.event_type === 'ToolReturned' ? [e.payload.step_id] : [])));
    // The answered row is settled before the decision's rows are written: a revision asked for again
    // at once starts afresh, not as a re-issue carrying what the answer already counted.
    if (answer) {
      const { row, after } = answer;
      if (after === 'done') journal.done(row.id, row.token);
      else if (after !== 'keep') journal.park(row.id, row.token, after.park_until, after.task);
    }
    for (const c of d.side) {
      const task = DurableSideWork.taskOf(c);
      if (task) rows.push(journal.issue(task, DurableSideWork.deadlineFor(task, m.state, now)));
    }
    if (ended) {
      // Nobody wants plans or verdicts for an ended run (what planning had spent counts all the same);
      // a child run's parent wants its result.
      const dropped = journal.all();
      chargeUnsettled(d.events, m.state, dropped);
      journal.drop(dropped.map((r) => r.id));
      if (parts.hasParent()) rows.push(journal.issue({ type: 'report_parent' }, now + 30_000));
    }
    if (d.events.length > 0) persist(store, m.state, d.events);
    // The decision's step outputs, many a statement (read back from memory until now).
    store.flushOutputs();
  });
  const d = decided as Decision | null;
  return d ? { decided: d, queued, inline, rows } : null;
}

/** The machine's decision, or the {@link DecisionFault} it threw (a failed write is thrown as it was). */
function decidedOrFault(inputs: MachineInput[], run: () => Decision): Decision {
  try {
    return run();
  } catch (err) {
    throw new DecisionFault(err, inputs);
  }
}
