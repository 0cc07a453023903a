/**
 * A run as a person follows it, folded from its events: the steps in plan order with status, every
 * attempt (tool, resolved parameters, idempotency key, start, end, latency, outcome), the critical
 * path, what the run waits for, and how it ended. Pure: the CLI's live view and the dashboard draw
 * from the same fold, and it is tested without either.
 * @example
 * const view = emptyView(runId);
 * for await (const e of client.watch(runId)) applyEvent(view, e);
 */
import type { EventOf, PlanStep, RunEvent } from './types';

/** One attempt of a step, as its events tell it. */
export type AttemptView = {
  attempt: number;
  tool: string;
  parameters: Record<string, unknown>;
  idempotency_key: string;
  /** Epoch ms. */
  started_at: number;
  ended_at: number | null;
  latency_ms: number | null;
  success: boolean | null;
  output?: unknown;
  error: { code: string; message: string } | null;
  cached: boolean;
  /**
   * Its outcome came after the run had ended (a cancel while it ran): the tool did run, with its side
   * effects; a success still completes the step, which a retry then keeps.
   */
  after_run_ended: boolean;
  /** The plan version it ran under (its ToolInvoked's reference). */
  plan_version: number | null;
  /** It ran the step's fallback action (as its StepScheduled said), not the step's own. */
  fallback: boolean;
};

/**
 * Why a step runs again: a retry of the run (`POST /retry`) or a later plan version re-opened it. Its
 * attempts keep counting from the step's first (the engine's number, in idempotency rows and errors);
 * `first_attempt` is where this round began, so a view can say "attempt 1 of up to 2 in retry 1".
 */
export type StepRound = {
  kind: 'retry' | 'rerun';
  /** For a retry: which of the run's retries it is (1 = the first). */
  retry: number;
  /** For a re-run: the plan version that re-opened it. */
  plan_version: number | null;
  /** The step's attempt number that began this round; null until it starts. */
  first_attempt: number | null;
};

export type StepView = {
  id: string;
  action: string;
  dependencies: string[];
  /**
   * `interrupted`: it was running when the run ended (cancelled, failed elsewhere): not running any
   * more as far as the run goes, though its tool may have gone on — a late outcome still shows.
   */
  status: 'pending' | 'running' | 'retrying' | 'completed' | 'failed' | 'skipped' | 'interrupted';
  /** The number of its last attempt, counted over the whole run (retries and re-runs go on from it). */
  attempts: number;
  /** Null in the step's first round; else the retry or re-run it runs in now. */
  round: StepRound | null;
  /**
   * Attempts one round may take: 1 + its retries (the step's `retries`, else the run's
   * `retry_failed_steps`) + 1 with a `fallback_action`; null when the run's settings are not known.
   */
  attempt_limit: number | null;
  /** Epoch ms of the running attempt's start (ToolInvoked). */
  started_at: number | null;
  /** Of the last attempt that returned. */
  latency_ms: number | null;
  error: string | null;
  skip_reason: string | null;
  fallback: boolean;
  /** Every attempt, first first (a fallback's attempts included). */
  history: AttemptView[];
  /** The step as planned (description, parameters as written, fallback_action, …). */
  planned: PlanStep;
};

/**
 * A step as it was before a later plan version replaced it — removed from the plan, or re-opened to
 * run again under a changed definition after it failed — kept so its attempts and error stay visible.
 */
export type ReplacedStep = StepView & {
  /** The plan version the step belonged to. */
  plan_version: number | null;
  /** The version that replaced it, what kind of change that was, and why (the revision's reason, the approver's comment). */
  replaced_by: { version: number | null; kind: string; reason: string };
  /** `removed`: not in the new version; `rerun`: in it again, to run afresh. */
  change: 'removed' | 'rerun';
};

export type RunView = {
  run_id: string;
  goal: string;
  status: string;
  plan_version: number | null;
  steps: StepView[];
  /**
   * Steps later plan versions replaced, oldest first: a removed step, or the failed (or skipped)
   * incarnation of a step a revision runs again. Never in `steps`, which is the current plan.
   */
  replaced: ReplacedStep[];
  critical_path: string[];
  critical_path_ms: number | null;
  started_at: number | null;
  ended_at: number | null;
  final_output: unknown;
  /** Why the run failed or was aborted; null for a cancellation, which is no error. */
  error: string | null;
  /** Why a cancelled run was cancelled (`plan_rejected`, or the cancel's own reason); null otherwise. */
  cancel_reason: string | null;
  /**
   * A limit (`max_steps`) that stopped an iterative run's turns before its model said it was done,
   * in words (RunTerminated's `limit`); null otherwise.
   */
  limit_reached: string | null;
  waiting: {
    kind: 'approval' | 'input';
    prompt?: string | undefined;
    step_id?: string | undefined;
    /** The plan version awaiting approval. */
    plan_version?: number | undefined;
  } | null;
  /**
   * How the last approval asked for was decided: by a person or by the deadline's default, and the
   * comment; `plan_version` is the version it was asked for, `revision` whether that was a version
   * after the first (`approval.revisions: "ask"`).
   */
  approval: {
    decision: 'granted' | 'rejected';
    by: string;
    comment: string | null;
    /** The name the decider gave (`approver`), as given: a label, not a verified identity. */
    approver?: string | undefined;
    plan_version?: number | undefined;
    revision?: boolean | undefined;
  } | null;
  /** The plan awaits approval or was rejected: a retry will not run it (the API answers 409). */
  unapproved: boolean;
  /**
   * What the run worked around and someone should fix, once per code: `queue_not_consumed` (no
   * consumer took a queued step, so the run carries its steps out in its object), or
   * `held_past_queue_window` (the run was held, as by a rollback, past a queued step's window).
   */
  notices: { code: string; message: string; step_id?: string | undefined }[];
  last_seq: number;
  /** How many times the run was retried (`RunResumed`). */
  retries: number;
  /** The run's `retry_failed_steps` (RunCreated's config); null before that event. */
  retry_failed_steps: number | null;
  /** Plan changes: who authored each version and why, with the tokens planning spent. */
  versions: {
    version: number | null;
    kind: string;
    reason: string;
    at: number;
    tokens?: { prompt: number; completion: number } | undefined;
    /** What a new version did to the steps of the one before (none for the first plan). */
    changes?: { added: string[]; changed: string[]; removed: string[] } | undefined;
  }[];
};

export function emptyView(runId: string): RunView {
  return {
    run_id: runId,
    goal: '',
    status: 'planning',
    plan_version: null,
    steps: [],
    replaced: [],
    critical_path: [],
    critical_path_ms: null,
    started_at: null,
    ended_at: null,
    final_output: undefined,
    error: null,
    cancel_reason: null,
    limit_reached: null,
    waiting: null,
    approval: null,
    unapproved: false,
    notices: [],
    last_seq: 0,
    retries: 0,
    retry_failed_steps: null,
    versions: [],
  };
}

function setPlan(view: RunView, steps: readonly PlanStep[], version: number | null): void {
  const before = new Map(view.steps.map((s) => [s.id, s]));
  view.steps = steps.map((s) => {
    const kept = before.get(s.id);
    const limit = attemptLimit(s, view.retry_failed_steps);
    return kept
      ? { ...kept, planned: s, dependencies: s.dependencies ?? [], attempt_limit: limit }
      : unstartedStep(s, limit);
  });
  view.plan_version = version;
}

/** Attempts one round of the step may take (see `StepView.attempt_limit`). */
function attemptLimit(s: PlanStep, retryFailedSteps: number | null): number | null {
  const retries = typeof s.retries === 'number' ? s.retries : retryFailedSteps;
  return retries === null ? null : 1 + retries + (s.fallback_action ? 1 : 0);
}

/** A planned step no event has touched yet. */
export function unstartedStep(s: PlanStep, attempt_limit: number | null = null): StepView {
  return {
    id: s.id,
    action: s.action ?? (s.subplan ? 'subplan' : ''),
    dependencies: s.dependencies ?? [],
    status: 'pending',
    attempts: 0,
    round: null,
    attempt_limit,
    started_at: null,
    latency_ms: null,
    error: null,
    skip_reason: null,
    fallback: false,
    history: [],
    planned: s,
  };
}

const step = (view: RunView, id: string) => view.steps.find((s) => s.id === id);

/** The view after one more event (mutated in place and returned). */
export function applyEvent(view: RunView, e: RunEvent): RunView {
  view.last_seq = e.seq;
  const at = Date.parse(e.timestamp);
  switch (e.event_type) {
    case 'RunCreated':
      view.goal = e.payload.goal;
      view.retry_failed_steps = e.payload.config.retry_failed_steps ?? null;
      break;
    case 'PlanAuthored':
      setPlan(view, e.payload.plan.steps, e.payload.plan.version ?? e.references.plan_version);
      view.versions.push({
        version: view.plan_version,
        kind: 'authored',
        reason: 'first plan',
        at,
        tokens: e.payload.tokens,
      });
      break;
    case 'PlanUpdated': {
      const version = e.payload.plan.version ?? e.references.plan_version;
      const changes = stepChanges(view.steps, e.payload.plan.steps, e.payload.changed_steps);
      keepReplaced(
        view,
        e.payload.plan.steps,
        {
          version,
          kind: e.payload.kind,
          reason: e.payload.reason,
        },
        e.payload.changed_steps,
      );
      setPlan(view, e.payload.plan.steps, version);
      view.versions.push({
        version: view.plan_version,
        kind: e.payload.kind,
        reason: e.payload.reason,
        at,
        tokens: e.payload.tokens,
        changes,
      });
      break;
    }
    case 'StepStreamed':
      if (!step(view, e.payload.step.id))
        setPlan(view, [...stepsAsPlan(view), e.payload.step], view.plan_version);
      break;
    case 'PlanValidated':
      view.critical_path = e.payload.estimates?.critical_path.steps ?? [];
      view.critical_path_ms = e.payload.estimates?.critical_path.duration_ms ?? null;
      break;
    case 'RunStarted':
      view.status = 'running';
      view.started_at ??= at;
      view.waiting = null;
      break;
    case 'ApprovalRequested':
      view.status = 'awaiting_approval';
      view.waiting = { kind: 'approval', plan_version: e.payload.plan_version };
      view.unapproved = true;
      break;
    case 'ApprovalGranted':
    case 'ApprovalRejected': {
      const asked = view.waiting?.kind === 'approval' ? view.waiting.plan_version : undefined;
      // A second approval is a revision's (`approval.revisions: "ask"`): the run had run before it.
      const revision = view.approval !== null;
      view.waiting = null;
      view.unapproved = e.event_type === 'ApprovalRejected';
      view.approval = {
        decision: e.event_type === 'ApprovalRejected' ? 'rejected' : 'granted',
        by: e.payload.by,
        comment: e.payload.comment ?? null,
        ...(e.payload.approver !== undefined ? { approver: e.payload.approver } : {}),
        ...(asked !== undefined ? { plan_version: asked } : {}),
        ...(revision ? { revision } : {}),
      };
      // The run goes on (a revision's steps may wait on ones that are still running).
      if (e.event_type === 'ApprovalGranted' && view.status === 'awaiting_approval') view.status = 'running';
      break;
    }
    case 'InputRequested':
      view.status = 'awaiting_input';
      view.waiting = {
        kind: 'input',
        prompt: e.payload.prompt ?? e.payload.reason,
        step_id: e.payload.step_id,
      };
      break;
    case 'InputReceived':
      view.waiting = null;
      if (view.status === 'awaiting_input') view.status = 'running';
      break;
    case 'StepScheduled': {
      // A run approved before it starts may show its first step before anything else says so.
      view.started_at ??= at;
      if (view.status === 'awaiting_approval' || view.status === 'planning') view.status = 'running';
      const s = step(view, e.payload.step_id);
      if (s) s.fallback = e.payload.fallback;
      break;
    }
    case 'ToolInvoked': {
      const s = step(view, e.payload.step_id) ?? lastReplaced(view, e.payload.step_id);
      if (!s) break;
      Object.assign(s, { status: 'running', attempts: e.payload.attempt, started_at: at });
      if (s.round && s.round.first_attempt === null) s.round.first_attempt = e.payload.attempt;
      s.history.push({
        attempt: e.payload.attempt,
        tool: e.payload.tool,
        parameters: e.payload.parameters,
        idempotency_key: e.payload.idempotency_key,
        started_at: at,
        ended_at: null,
        latency_ms: null,
        success: null,
        error: null,
        cached: false,
        after_run_ended: false,
        plan_version: e.references.plan_version,
        fallback: s.fallback,
      });
      break;
    }
    case 'ToolReturned':
      returned(view, e);
      break;
    case 'StepRedispatched': {
      const { code, message } = e.payload.error;
      if (!view.notices.some((n) => n.code === code))
        view.notices.push({ code, message, step_id: e.payload.step_id });
      break;
    }
    case 'StepRetried': {
      const s = step(view, e.payload.step_id);
      if (s) Object.assign(s, { status: 'retrying', error: e.payload.error.message });
      break;
    }
    case 'StepFailed': {
      const s = step(view, e.payload.step_id);
      if (s) Object.assign(s, { status: 'failed', error: e.payload.error.message, started_at: null });
      break;
    }
    case 'StepSkipped': {
      const s = step(view, e.payload.step_id);
      if (s) Object.assign(s, { status: 'skipped', skip_reason: e.payload.reason, started_at: null });
      break;
    }
    case 'RunResumed':
      // A retry: the run goes on, and the steps it reopens wait again.
      view.status = 'running';
      view.ended_at = null;
      view.error = null;
      view.cancel_reason = null;
      view.limit_reached = null;
      view.retries += 1;
      for (const id of e.payload.step_ids) {
        const s = step(view, id);
        if (!s) continue;
        Object.assign(s, { status: 'pending', error: null, skip_reason: null, started_at: null });
        // Its attempts go on counting from the last: the round says where this retry's began.
        s.round = { kind: 'retry', retry: view.retries, plan_version: null, first_attempt: null };
      }
      break;
    case 'RunTerminated':
      view.status = e.payload.status;
      view.ended_at = at;
      view.final_output = e.payload.final_output;
      view.cancel_reason = e.payload.status === 'cancelled' ? e.payload.reason : null;
      view.limit_reached = e.payload.limit?.message ?? null;
      view.error =
        e.payload.error?.message ??
        (e.payload.status === 'completed' || e.payload.status === 'cancelled' ? null : e.payload.reason);
      view.waiting = null;
      for (const s of view.steps) {
        if (s.status === 'running') Object.assign(s, { status: 'interrupted', started_at: null });
        // As the run records it: steps that never started can no longer run (a retry reopens them).
        if (s.status === 'pending' || s.status === 'retrying') s.status = 'skipped';
        for (const a of s.history) a.ended_at ??= at;
      }
      for (const s of view.replaced) for (const a of s.history) a.ended_at ??= at;
      break;
    default:
      break;
  }
  return view;
}

function returned(view: RunView, e: EventOf<'ToolReturned'>): void {
  const current = step(view, e.payload.step_id);
  // An attempt still running when a revision removed its step returns to that step's replaced entry.
  const s =
    current && current.history.some((a) => a.attempt === e.payload.attempt)
      ? current
      : (lastReplaced(view, e.payload.step_id) ?? current);
  if (!s) return;
  s.latency_ms = e.payload.latency_ms;
  s.started_at = null;
  const late = e.payload.after_run_ended === true;
  // The run's end closed every open attempt in the view; one that outlived it returns here.
  const attempt = s.history.findLast((a) => a.attempt === e.payload.attempt && (late || a.ended_at === null));
  if (attempt) {
    attempt.ended_at = Date.parse(e.timestamp);
    attempt.latency_ms = e.payload.latency_ms;
    attempt.success = e.payload.success;
    attempt.output = e.payload.output;
    attempt.error = e.payload.error ? { code: e.payload.error.code, message: e.payload.error.message } : null;
    attempt.cached = e.payload.cached === true;
    attempt.after_run_ended = late;
  }
  if (s !== current) {
    // A replaced step keeps the status it had; only its attempt's outcome is news.
    if (!e.payload.success) s.error = e.payload.error?.message ?? 'failed';
    return;
  }
  if (e.payload.success) Object.assign(s, { status: 'completed', error: null });
  else s.error = e.payload.error?.message ?? 'failed';
}

/** The steps a new version added, changed (`changed_steps` already in the plan) and removed. */
function stepChanges(before: readonly StepView[], next: readonly PlanStep[], changed: readonly string[]) {
  const had = new Set(before.map((s) => s.id));
  const keeps = new Set(next.map((s) => s.id));
  return {
    added: changed.filter((id) => !had.has(id)),
    changed: changed.filter((id) => had.has(id)),
    removed: before.filter((s) => !keeps.has(s.id)).map((s) => s.id),
  };
}

/** The latest replaced incarnation of step `id`, if a revision replaced one. */
function lastReplaced(view: RunView, id: string): ReplacedStep | undefined {
  return view.replaced.findLast((r) => r.id === id);
}

/**
 * Before a new plan version is installed: the steps it replaces move to `view.replaced` with what
 * they did. A step the version removes is kept whatever it did (the plan meant to do it). A step it
 * keeps that had failed or was skipped, the run re-opens to run afresh (as the engine does: any
 * such step on a revision, a changed one on an approver's edit): when it had run, its incarnation
 * is kept as replaced, and its current entry starts over. A completed or running step carries on.
 */
function keepReplaced(
  view: RunView,
  next: readonly PlanStep[],
  by: ReplacedStep['replaced_by'],
  changed: readonly string[],
): void {
  const inNext = new Map(next.map((s) => [s.id, s]));
  view.steps = view.steps.map((s) => {
    const after = inNext.get(s.id);
    const settled = s.status === 'failed' || s.status === 'skipped' || s.status === 'retrying';
    const reopened =
      after !== undefined && settled && (by.kind !== 'approval_edit' || changed.includes(s.id));
    const ran = s.history.length > 0 || s.status === 'failed';
    if (after !== undefined && !reopened) return s;
    if (after !== undefined && !ran)
      return unstartedStep(after, attemptLimit(after, view.retry_failed_steps));
    view.replaced.push({
      ...s,
      started_at: null,
      plan_version: view.plan_version,
      replaced_by: by,
      change: after === undefined ? 'removed' : 'rerun',
    });
    if (after === undefined) return s;
    // Run again under the new version: a fresh history, its attempts numbered on from the old ones.
    return {
      ...unstartedStep(after, attemptLimit(after, view.retry_failed_steps)),
      round: { kind: 'rerun', retry: 0, plan_version: by.version, first_attempt: null },
    };
  });
}

function stepsAsPlan(view: RunView): PlanStep[] {
  return view.steps.map((s) => ({ id: s.id, action: s.action, dependencies: s.dependencies }));
}
