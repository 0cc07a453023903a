/**
 * What a run looks like from outside (SPEC §6 `GET /v1/runs/:id`), and replay: the same state rebuilt
 * by folding the event log with the same `evolve` the live run uses.
 */
import { inferredDependencies } from '../plan/inferred-dependencies';
import { parseRunConfig } from '../plan/config';
import type { ErrorInfo } from '../errors';
import { TERMINAL_RUN_STATUSES, type Plan, type RunStatus, type StepStatus } from '../plan/model';
import type { RunEvent } from './events';
import { evolve } from './evolve';
import { emptyRunState, MemoryResultStore, type ResultStore, type RunState } from './state';
import { ValueBudget, type SnapshotBudget } from './value-budget';
import { formatPath } from '../plan/reference-syntax';

/** The reference that reads a step's output (what a snapshot's marker for it names). */
export const outputRef = (stepId: string): string => formatPath(['steps', stepId, 'output']);
/** The reference that reads a state variable. */
export const varRef = (key: string): string => formatPath(['state', key]);

/**
 * Steps by status; they add up to `total`. `interrupted`: steps still `running` in a run that has
 * ended (see `StepDetail.interrupted`) — counted there, not in `running`, so an ended run never
 * reads "1 running".
 */
export type StepCounts = {
  total: number;
  pending: number;
  blocked: number;
  running: number;
  completed: number;
  failed: number;
  skipped: number;
  interrupted: number;
};

export type StepDetail = {
  status: StepStatus;
  attempts: number;
  started_at: string | null;
  finished_at: string | null;
  latency_ms: number | null;
  error: ErrorInfo | null;
  skip_reason: string | null;
  /**
   * The run ended (cancelled, failed, aborted) while the step ran: the run no longer waits for it,
   * though its tool may have gone on — an outcome that comes later still completes or fails it.
   * Its `status` stays `running` until then (a retry does not re-run it while its attempt is out).
   */
  interrupted: boolean;
  /** While it waits for a retry: when the next attempt starts (ISO); absent otherwise. */
  retry_at?: string;
  /** Dependencies the step's references add to the ones it lists (only when there are some). */
  inferred_dependencies?: string[];
};

export type RunSnapshot = {
  run_id: string;
  status: RunStatus;
  goal: string;
  plan: Plan | null;
  plan_version: number | null;
  step_statuses: Record<string, StepStatus>;
  /** Output of every completed step, by id. */
  step_results: Record<string, unknown>;
  steps: Record<string, StepDetail>;
  /** State variables written by `output_path`. */
  state: Record<string, unknown>;
  counts: StepCounts;
  progress: number;
  revision_count: number;
  token_usage: RunState['token_usage'];
  started_at: string | null;
  completed_at: string | null;
  /** Seconds from start to end (or to now while running is not known: null). */
  execution_time: number | null;
  final_output: unknown;
  error?: ErrorInfo;
  /** Why an ended run ended (`success`, `steps_failed`, `plan_rejected`, a cancel's reason, …); null before. */
  termination_reason: string | null;
  /**
   * An iterative run whose turns a limit stopped before its model said it was done (it ends
   * `success`, the turns' steps completed): the setting, its value, the turns taken, in words.
   */
  limit_reached: RunState['limit_reached'];
  last_seq: number;
};

export function countSteps(state: RunState): StepCounts {
  const c: StepCounts = {
    total: 0,
    pending: 0,
    blocked: 0,
    running: 0,
    completed: 0,
    failed: 0,
    skipped: 0,
    interrupted: 0,
  };
  for (const rt of state.steps.values()) {
    c.total += 1;
    if (rt.status === 'revised') c.pending += 1;
    else if (isInterrupted(state, rt.status)) c.interrupted += 1;
    else c[rt.status] += 1;
  }
  return c;
}

/** A step the run's end cut off: still `running` in a run that has ended. */
export function isInterrupted(state: RunState, status: StepStatus): boolean {
  return status === 'running' && TERMINAL_RUN_STATUSES.has(state.status);
}

export function progressOf(c: StepCounts): number {
  return c.total === 0 ? 0 : (c.completed + c.failed + c.skipped) / c.total;
}

/**
 * What a run looks like from outside. With a `budget`, its values (the final output first, then step
 * results in plan order, then state variables) are included while they fit, and replaced by markers
 * past that; so are the steps' error messages, cut short past theirs (value-budget.ts).
 */
export function snapshotRun(state: RunState, results: ResultStore, budget?: SnapshotBudget): RunSnapshot {
  const bound = budget ? new ValueBudget(budget) : null;
  const take = (ref: string, read: () => unknown) => (bound ? bound.take(ref, read) : read());
  const final_output = take('final_output', () => state.final_output);
  const step_statuses: Record<string, StepStatus> = {};
  const step_results: Record<string, unknown> = {};
  const steps: Record<string, StepDetail> = {};
  const inferred = state.plan && state.graph ? inferredDependencies(state.plan.steps, state.graph) : {};
  for (const [id, rt] of state.steps) {
    step_statuses[id] = rt.status;
    if (rt.status === 'completed')
      step_results[id] = take(outputRef(id), () => results.getOutput(id).value ?? null);
    steps[id] = {
      status: rt.status,
      attempts: rt.attempt,
      started_at: rt.started_at,
      finished_at: rt.finished_at,
      latency_ms: rt.latency_ms,
      error: rt.error && bound ? bound.error(rt.error) : rt.error,
      skip_reason: rt.skip_reason,
      interrupted: isInterrupted(state, rt.status),
    };
    if (rt.retry_at !== null && rt.status === 'pending' && state.status === 'running')
      steps[id].retry_at = new Date(rt.retry_at).toISOString();
    const added = inferred[id];
    if (added) steps[id].inferred_dependencies = added;
  }
  const vars: Record<string, unknown> = {};
  // defineProperty, not assignment: a merged key named `__proto__` is data, not the prototype.
  for (const k of results.varKeys().sort())
    Object.defineProperty(vars, k, {
      value: take(varRef(k), () => results.getVar(k).value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  const counts = countSteps(state);
  const snap: RunSnapshot = {
    run_id: state.run_id,
    status: state.status,
    goal: state.goal,
    plan: state.plan,
    plan_version: state.plan?.version ?? null,
    step_statuses,
    step_results,
    steps,
    state: vars,
    counts,
    progress: progressOf(counts),
    revision_count: state.revision_count,
    token_usage: { ...state.token_usage },
    started_at: state.started_at,
    completed_at: state.completed_at,
    execution_time:
      state.started_at && state.completed_at
        ? (Date.parse(state.completed_at) - Date.parse(state.started_at)) / 1000
        : null,
    final_output,
    termination_reason: state.termination_reason,
    limit_reached: state.limit_reached,
    last_seq: state.seq,
  };
  if (state.error) snap.error = state.error;
  return snap;
}

/** Folds events into a fresh state; stop after `at` (a seq) when given. */
export function replay(
  events: Iterable<RunEvent>,
  opts: { at?: number; results?: ResultStore } = {},
): { state: RunState; results: ResultStore } {
  const results = opts.results ?? new MemoryResultStore();
  const state = emptyRunState('', parseRunConfig({}));
  for (const e of events) {
    if (opts.at !== undefined && e.seq > opts.at) break;
    evolve(state, e, results);
  }
  return { state, results };
}
