/**
 * Side work in the run's object, durably (issue 10): what a decision asks for beyond running steps is
 * a row of the {@link SideWorkJournal} written in the deciding transaction; this class runs it —
 * planning, revisions and judges through the shared engine/side-work.ts with the Worker's ports, the
 * approval webhook one delivery attempt at a time, a child run's report to its parent — and hands the
 * answer back to be applied only while its row still carries its token. The run's alarm calls
 * {@link DurableSideWork.recover}: rows lost with an instance are issued again at once, rows past their
 * deadline are abandoned and issued again, up to a bound, then fail as data.
 */
import { carryOut, failureInput, type SideCommand } from '../engine/side-work';
import type { MachineInput } from '../engine/machine';
import type { RunState } from '../engine/state';
import type { ToolRegistry } from '../executor/registry';
import { EdgeplanError } from '../errors';
import { deliverApproval } from './approval-delivery';
import { reportToParent } from './child-runs';
import { workerSidePorts } from './side-ports';
import type { SideRow, SideTask, SideWorkJournal, Spent } from './side-work-journal';
import { withCarried } from '../engine/spent-tokens';
import type { SqlStore } from './sql-store';
import { log } from '../log';
import { logPlanningLlmFailed } from './planning-llm-failed';

/** How often running side work is checked on, so work lost to an eviction is issued again promptly. */
export const SIDE_CHECK_MS = 5_000;
/** Issues of a planning, revision or judge row before it fails. */
const MAX_ISSUES = 3;
/** A child run's report, a delivery attempt: how long one may take before it counts as lost. */
const SHORT_WORK_MS = 30_000;
const REPORT_RETRY_CAP_MS = 60_000;

/** What happens to the row once its answer is applied. */
export type RowAfter = 'done' | 'keep' | { park_until: number; task: SideTask };

export type SideWorkHost = {
  ctx: DurableObjectState;
  env: Env;
  store: SqlStore;
  journal: SideWorkJournal;
  tools(): ToolRegistry;
  state(): RunState | null;
  /** Applies `inputs` if `row` is still current, and settles the row as `after` says, atomically. */
  answer(row: SideRow, inputs: MachineInput[], after: RowAfter): Promise<void>;
};

export class DurableSideWork {
  /** Work running in this instance, by row id, with the token it runs under and its promise. */
  readonly #running = new Map<string, { token: string; controller: AbortController; work?: Promise<void> }>();

  constructor(private readonly host: SideWorkHost) {}

  /** The row a side command becomes; null for work nothing here does (input is awaited from outside). */
  static taskOf(c: SideCommand): SideTask | null {
    if (c.type === 'input_requested') return null;
    if (c.type === 'approval_requested') return { type: 'approval_requested', deadline_at: c.deadline_at };
    return c;
  }

  /** How long an issue of `task` may run before it counts as lost (its deadline). */
  static deadlineFor(task: SideTask, state: RunState, now: number): number {
    if (task.type === 'plan' || task.type === 'revise' || task.type === 'judge') {
      // Each model call is bounded by planning_timeout_s; a planning attempt makes a few (repairs,
      // fallback models), so it is abandoned only well past that.
      return now + state.config.planning_timeout_s * 3000 + SIDE_CHECK_MS;
    }
    return now + SHORT_WORK_MS;
  }

  /** Starts a row's work in the background (it was just written, or issued again). */
  start(row: SideRow): void {
    this.#running.get(row.id)?.controller.abort(new DOMException('superseded', 'AbortError'));
    const controller = new AbortController();
    const entry: { token: string; controller: AbortController; work?: Promise<void> } = {
      token: row.token,
      controller,
    };
    this.#running.set(row.id, entry);
    const work = this.#run(row, controller.signal)
      .catch((err: unknown) =>
        log(
          'side_work_failed',
          `side work ${row.id} (${SIDE_WORK_NAMES[row.task.type]}) failed; ${afterFailure(row)}`,
          {
            run_id: this.host.ctx.id.name,
            ...(stepOf(row.task) ? { step_id: stepOf(row.task) } : {}),
            error: err,
          },
        ),
      )
      .finally(() => {
        if (this.#running.get(row.id)?.token === row.token) this.#running.delete(row.id);
      });
    entry.work = work;
    this.host.ctx.waitUntil(work);
  }

  /**
   * Stops the planning and revision running here and waits, `ms` at most, until each has recorded the
   * calls it made — a streamed answer cut now costs what streamed, known only once it is cut — so the
   * run that ends next counts them (decision-commit.ts). Their rows stay, lost, for that end to drop
   * (or, should the run go on, the alarm to issue again).
   */
  async stopPlanning(reason: string, ms: number): Promise<void> {
    const stopping = [...this.#running].filter(([id]) => id === 'plan' || id === 'revise');
    if (stopping.length === 0) return;
    for (const [, r] of stopping) r.controller.abort(new DOMException(reason, 'AbortError'));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    await Promise.race([Promise.allSettled(stopping.map(([, r]) => r.work)), bound]);
    clearTimeout(timer);
  }

  /** The run ended: nothing still running is wanted. */
  abortAll(reason: string): void {
    for (const r of this.#running.values()) r.controller.abort(new DOMException(reason, 'AbortError'));
    this.#running.clear();
  }

  /**
   * Rows whose work was lost (not running here and not parked), ran past its deadline, or is parked
   * and due: issued again — or, past {@link MAX_ISSUES}, answered with their failure.
   */
  async recover(now: number): Promise<void> {
    const state = this.host.state();
    if (!state) return;
    for (const row of this.host.journal.all()) {
      const live = this.#running.get(row.id)?.token === row.token;
      const lost = !live && !row.parked;
      if (!lost && row.due_at > now) continue;
      if (row.parked) {
        this.start(this.host.journal.issue(row.task, DurableSideWork.deadlineFor(row.task, state, now)));
        continue;
      }
      if (
        row.issued >= MAX_ISSUES &&
        row.task.type !== 'approval_requested' &&
        row.task.type !== 'report_parent'
      ) {
        this.#running.get(row.id)?.controller.abort(new DOMException('deadline', 'TimeoutError'));
        const why = lost ? 'was lost with its instance' : 'ran past its deadline';
        // An error, not its fields: a plain object is read as something a tool threw (`tool_error`).
        const failed = failureInput(
          row.task as SideCommand,
          new EdgeplanError(
            row.task.type === 'judge' ? 'judge_timeout' : 'planning_timeout',
            `${row.task.type} did not finish after ${row.issued} attempts (the last ${why}; planning_timeout_s is ${state.config.planning_timeout_s})`,
          ),
        );
        // The model calls its issues made were spent all the same.
        const spent = row.task.type === 'plan' || row.task.type === 'revise' ? row.task.spent : undefined;
        const input = withCarried(failed, spent);
        await this.host.answer(row, input ? [input] : [], 'done');
        continue;
      }
      this.start(this.host.journal.issue(row.task, DurableSideWork.deadlineFor(row.task, state, now)));
    }
  }

  /** When the alarm must next look at side work, or null. */
  nextCheck(now: number): number | null {
    const { nextDue, started } = this.host.journal.summary();
    let at = nextDue;
    // Work running (or lost) is checked on often: after a crash nobody else would notice.
    if (this.#running.size > 0 || started) {
      at = at === null ? now + SIDE_CHECK_MS : Math.min(at, now + SIDE_CHECK_MS);
    }
    return at;
  }

  async #run(row: SideRow, signal: AbortSignal): Promise<void> {
    const h = this.host;
    const state = h.state();
    if (!state) return;
    const task = row.task;
    switch (task.type) {
      case 'approval_requested': {
        // Decided meanwhile (through the API or the dashboard, or the run ended): nobody is to be asked
        // any more — a delivery lost with its instance, or parked for a retry, is not sent after the
        // decision with a link that answers 410. A new version to approve issues a row of its own.
        if (state.status !== 'awaiting_approval') {
          await h.answer(row, [], 'done');
          return;
        }
        const d = await deliverApproval(
          state,
          h.store,
          h.env,
          task.deadline_at,
          row.issued,
          task.link,
          (link) => h.journal.retask(row.id, row.token, { ...task, link }),
        );
        const next = d.input?.next_attempt_at ?? null;
        const after: RowAfter =
          next === null ? 'done' : { park_until: next, task: { ...task, link: d.link } };
        await h.answer(row, d.input ? [d.input] : [], after);
        return;
      }
      case 'report_parent': {
        const ok = await reportToParent(h.env, h.store, state);
        const wait = Math.min(1000 * 2 ** (row.issued - 1), REPORT_RETRY_CAP_MS);
        await h.answer(row, [], ok ? 'done' : { park_until: Date.now() + wait, task });
        return;
      }
      default: {
        const c = task as SideCommand;
        // What the issues before this one spent (they were lost or abandoned): counted with its answer.
        const carried = task.type === 'plan' || task.type === 'revise' ? task.spent : undefined;
        const spend = (t: Spent) => h.journal.spend(row.id, row.token, t);
        let input: MachineInput | null;
        try {
          input = await carryOut(c, {
            state,
            results: h.store,
            ports: workerSidePorts(h.env, h.tools(), state, spend),
            ids: {
              id: (p) => `${p}_${crypto.randomUUID().replaceAll('-', '')}`,
              uuid: () => crypto.randomUUID(),
            },
            // A streamed step read before an abort (a cancel stopping this planning) and yielded after
            // it is dropped, as the work's answer is: the cancel waiting for it must not see it join.
            emit: (i) => (signal.aborted ? Promise.resolve() : h.answer(row, [i], 'keep')),
            signal,
          });
        } catch (err) {
          input = failureInput(c, err);
        }
        // Abandoned (superseded, the run ended): its answer is not wanted.
        if (signal.aborted) return;
        input = withCarried(input, carried);
        logPlanningLlmFailed(state.run_id, input);
        await h.answer(row, input ? [input] : [], 'done');
      }
    }
  }
}

/** What each kind of side work is, in the operator's words (`side_work_failed`). */
const SIDE_WORK_NAMES: Record<SideTask['type'], string> = {
  plan: 'planning the goal',
  revise: 'revising the plan',
  judge: 'judging a step’s result',
  approval_requested: 'the approval webhook',
  report_parent: 'reporting to the parent run',
};

/**
 * What follows a piece that threw: {@link DurableSideWork.recover} finds it lost at the run's next check
 * and issues it again — but a planning, revision or judge issued {@link MAX_ISSUES} times fails instead.
 */
function afterFailure(row: SideRow): string {
  const limited = row.task.type === 'plan' || row.task.type === 'revise' || row.task.type === 'judge';
  if (!limited) return `it is issued again within ${SIDE_CHECK_MS / 1000} s`;
  if (row.issued >= MAX_ISSUES)
    return `it was issue ${row.issued} of ${MAX_ISSUES}: it is not issued again, and fails as timed out`;
  return `it is issued again within ${SIDE_CHECK_MS / 1000} s (issue ${row.issued} of ${MAX_ISSUES})`;
}

/** The step a piece of side work is about, when it is about one. */
function stepOf(task: SideTask): string | undefined {
  return 'step_id' in task ? task.step_id : undefined;
}
