/**
 * Seed 000's `PlanExecutionState` and `StepResult` (§2.5.2, §3.2), read off the engine's snapshot
 * and event log — never kept separately, so what a callback sees is what replaying the events gives.
 */
import type { ErrorInfo } from '../errors';
import { stepDef } from '../engine/step-definition';
import type { PlanChangeKind, RevisionTrigger, RunEvent } from '../engine/events';
import type { RunSnapshot, StepDetail } from '../engine/snapshot';
import type { RunState } from '../engine/state';
import type { Plan, PlanStep, RunStatus, StepStatus } from '../plan/model';

/** How one step went. `output` is the step's output when it completed, else null. */
export type StepResult = {
  stepId: string;
  status: StepStatus;
  success: boolean;
  output: unknown;
  error: ErrorInfo | null;
  /** Attempts started, retries and fallback included. */
  attempts: number;
  latencyMs: number | null;
  startedAt: string | null;
  finishedAt: string | null;
  /** Why a skipped step was skipped (`dependency_failed`, `when_false`, …). */
  skipReason: string | null;
};

/** One new plan version: a revision, an approver's edit or a rollback. */
export type PlanRevision = {
  version: number;
  previousVersion: number | null;
  kind: PlanChangeKind;
  /** What asked for it, for revisions the run requested. */
  trigger: RevisionTrigger | null;
  reason: string;
  changedSteps: string[];
  at: string;
  plan: Plan;
};

/** Seed 000 §2.5.2, plus the run's id and status. Timestamps are ISO-8601. */
export type PlanExecutionState = {
  runId: string;
  status: RunStatus;
  plan: Plan | null;
  stepStatuses: Record<string, StepStatus>;
  /** Outputs of completed steps, by id. */
  stepResults: Record<string, unknown>;
  /** The most recently started step still running, or null. */
  currentStep: string | null;
  /** Every step running now, in plan order (parallel mode runs several). */
  runningSteps: string[];
  revisionCount: number;
  revisionHistory: PlanRevision[];
  /** State variables written by steps' `output_path`. */
  variables: Record<string, unknown>;
  startedAt: string | null;
  completedAt: string | null;
};

/**
 * The execution state of a run from its snapshot and events.
 * @example const state = executionStateOf(runner.snapshot(), runner.events);
 */
export function executionStateOf(snapshot: RunSnapshot, events: readonly RunEvent[]): PlanExecutionState {
  const runningSteps = Object.keys(snapshot.step_statuses).filter(
    (id) => snapshot.step_statuses[id] === 'running',
  );
  return {
    runId: snapshot.run_id,
    status: snapshot.status,
    plan: snapshot.plan,
    stepStatuses: { ...snapshot.step_statuses },
    stepResults: { ...snapshot.step_results },
    currentStep: runningSteps.length === 0 ? null : latestStarted(events, new Set(runningSteps)),
    runningSteps,
    revisionCount: snapshot.revision_count,
    revisionHistory: revisionsOf(events),
    variables: { ...snapshot.state },
    startedAt: snapshot.started_at,
    completedAt: snapshot.completed_at,
  };
}

/**
 * Every step's result, by id, in plan order.
 * @example stepResultsOf(runner.snapshot()).search?.output;
 */
export function stepResultsOf(snapshot: RunSnapshot): Record<string, StepResult> {
  const out: Record<string, StepResult> = {};
  for (const [id, detail] of Object.entries(snapshot.steps)) {
    out[id] = stepResultOf(id, detail, snapshot.step_results[id] ?? null);
  }
  return out;
}

export function stepResultOf(id: string, d: StepDetail, output: unknown): StepResult {
  return {
    stepId: id,
    status: d.status,
    success: d.status === 'completed',
    output: d.status === 'completed' ? output : null,
    error: d.error,
    attempts: d.attempts,
    latencyMs: d.latency_ms,
    startedAt: d.started_at,
    finishedAt: d.finished_at,
    skipReason: d.skip_reason,
  };
}

function latestStarted(events: readonly RunEvent[], running: ReadonlySet<string>): string | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.event_type === 'StepScheduled' && running.has(e.payload.step_id)) return e.payload.step_id;
  }
  return null;
}

function revisionsOf(events: readonly RunEvent[]): PlanRevision[] {
  const out: PlanRevision[] = [];
  let version: number | null = null;
  let trigger: RevisionTrigger | null = null;
  for (const e of events) {
    if (e.event_type === 'PlanAuthored') version = e.payload.plan.version;
    else if (e.event_type === 'RevisionRequested') trigger = e.payload.trigger;
    else if (e.event_type === 'PlanUpdated') {
      const p = e.payload;
      out.push({
        version: p.plan.version,
        previousVersion: version,
        kind: p.kind,
        trigger: p.kind === 'revision' ? trigger : null,
        reason: p.reason,
        changedSteps: [...p.changed_steps],
        at: e.timestamp,
        plan: p.plan,
      });
      version = p.plan.version;
      trigger = null;
    }
  }
  return out;
}

/**
 * The steps these events settled for good — a success, or a failure with retries and fallback spent —
 * with their results as of the event (a step skipped right after failing still reports the failure).
 */
export function settledSteps(
  state: RunState,
  events: readonly RunEvent[],
): { step: PlanStep; result: StepResult }[] {
  const out: { step: PlanStep; result: StepResult }[] = [];
  for (const e of events) {
    const done = e.event_type === 'ToolReturned' && e.payload.success;
    if (!done && e.event_type !== 'StepFailed') continue;
    const id = e.payload.step_id;
    const rt = state.steps.get(id);
    if (!rt) continue;
    const detail: StepDetail = {
      status: done ? 'completed' : 'failed',
      attempts: rt.attempt,
      started_at: rt.started_at,
      finished_at: rt.finished_at ?? e.timestamp,
      latency_ms: rt.latency_ms,
      error: e.event_type === 'StepFailed' ? e.payload.error : null,
      skip_reason: null,
      interrupted: false,
    };
    const output = e.event_type === 'ToolReturned' ? (e.payload.output ?? null) : null;
    out.push({ step: stepDef(state, id), result: stepResultOf(id, detail, output) });
  }
  return out;
}
