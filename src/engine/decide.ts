/**
 * The scheduler's decisions (SPEC §4), as data: given the state, what happens next — one event at a
 * time. Pure: it reads the state, the result store and `now`, and never changes anything; the machine
 * applies each decision with `evolve` before asking for the next one.
 */
import type { ErrorInfo } from '../errors';
import { evaluateCondition } from '../plan/conditions';
import type { PlanStep } from '../plan/model';
import { resolveValue, type RefScope, type Reference } from '../plan/references';
import { draft, type EventDraft } from './events';
import type { ResultStore, RunState, StepRuntime } from './state';

export type DecideContext = {
  now: number;
  results: ResultStore;
  /** How a scheduled step is carried out; the Durable Object runs sequential plans inline. */
  dispatch: (state: RunState, step: PlanStep) => 'queue' | 'inline';
  /** A planner is there to revise plans (revision triggers other than a user's stay quiet without one). */
  canRevise: boolean;
};

/** The next event the run should record, or null when there is nothing to do until the next input. */
export function decideNext(state: RunState, ctx: DecideContext): EventDraft | null {
  if (state.status === 'awaiting_approval') return decideApproval(state, ctx);
  if (state.status !== 'running') return decideWhenStopped(state, ctx);
  // While a revision is on its way, attempts in flight finish but nothing new starts.
  if (state.revising) return decideFailures(state, ctx) ?? decideTimeouts(state, ctx);
  return (
    decideFailures(state, ctx) ??
    decideTokenBudget(state, ctx) ??
    decideRunFailure(state) ??
    decideFailureRate(state, ctx) ??
    decideTimers(state, ctx) ??
    decideReady(state, ctx) ??
    decideCompletion(state, ctx)
  );
}

/** SPEC §4: over the token budget the run stops; near it (90%) a revision is asked for, once. */
function decideTokenBudget(state: RunState, ctx: DecideContext): EventDraft | null {
  const budget = state.config.token_budget;
  if (!budget) return null;
  const used = state.token_usage.total_tokens;
  if (used > budget) {
    return draft('RunTerminated', {
      status: 'aborted',
      reason: 'token_budget',
      error: {
        code: 'token_budget',
        message: `Token budget exceeded: ${used} of ${budget} tokens used`,
        retryable: false,
      },
    });
  }
  if (used >= 0.9 * budget && !state.budget_warned && revisionAllowed(state, ctx)) {
    return draft('RevisionRequested', {
      trigger: 'token_budget',
      reason: `${used} of ${budget} tokens used: revise the rest of the plan to fit the budget`,
      strategy: state.config.revision_strategy,
    });
  }
  return null;
}

/**
 * Seed 000's revision threshold: when the share of failed steps among those settled passes it (and
 * a new failure has happened since the last version), ask for a revision.
 */
function decideFailureRate(state: RunState, ctx: DecideContext): EventDraft | null {
  if (state.failures_since_revision === 0 || !revisionAllowed(state, ctx)) return null;
  let failed = 0;
  let settled = 0;
  for (const rt of state.steps.values()) {
    if (rt.status === 'failed') failed += 1;
    if (rt.status === 'failed' || rt.status === 'completed') settled += 1;
  }
  const rate = settled === 0 ? 0 : failed / settled;
  if (settled < 3 || rate <= state.config.revision_threshold) return null;
  return draft('RevisionRequested', {
    trigger: 'failure_rate',
    reason: `${failed} of ${settled} settled steps failed (${Math.round(rate * 100)}% > revision_threshold ${state.config.revision_threshold})`,
    strategy: state.config.revision_strategy,
  });
}

export function revisionAllowed(state: RunState, ctx: Pick<DecideContext, 'canRevise'>): boolean {
  const { allow_revision, max_revisions, revision_strategy } = state.config;
  // Automatic triggers ask the planner for a new version; other strategies answer step failures only.
  const replans = revision_strategy === 'replan_remaining' || revision_strategy === 'insert_recovery';
  return allow_revision && replans && ctx.canRevise && state.revision_count < max_revisions;
}

/** The approver's deadline: the configured default action applies when it passes. */
function decideApproval(state: RunState, ctx: DecideContext): EventDraft | null {
  const a = state.approval;
  if (a?.decision === 'rejected')
    return draft('RunTerminated', { status: 'cancelled', reason: 'plan_rejected' });
  if (!a || a.deadline_at === null || a.deadline_at > ctx.now || a.decision !== 'pending') return null;
  const comment = 'approval deadline passed; default_action applied';
  return state.config.approval?.default_action === 'approve'
    ? draft('ApprovalGranted', { comment, by: 'timeout' })
    : draft('ApprovalRejected', { comment, by: 'timeout' });
}

function decideTimeouts(state: RunState, ctx: DecideContext): EventDraft | null {
  for (const [id, at] of state.timers) {
    const rt = state.steps.get(id)!;
    if (at <= ctx.now && rt.status === 'running') return timeoutReturn(state, id, rt);
  }
  return null;
}

/** A stopped run records nothing new, except that an attempt still in flight can time out. */
function decideWhenStopped(state: RunState, ctx: DecideContext): EventDraft | null {
  for (const id of state.needs_decision) {
    const rt = state.steps.get(id)!;
    return draft(
      'StepFailed',
      { step_id: id, error: rt.error ?? runStopped(state), handled: false },
      { step_id: id },
    );
  }
  for (const [id, at] of state.timers) {
    const rt = state.steps.get(id)!;
    if (rt.status !== 'running')
      return draft('StepSkipped', { step_id: id, reason: 'run_terminated' }, { step_id: id });
    if (at <= ctx.now) return timeoutReturn(state, id, rt);
  }
  return null;
}

/** A failed attempt: retry with backoff, else the fallback action, else the step fails. */
function decideFailures(state: RunState, ctx: DecideContext): EventDraft | null {
  for (const id of state.needs_decision) {
    const rt = state.steps.get(id)!;
    const step = stepDef(state, id);
    const error = rt.error ?? { code: 'tool_error', message: 'failed', retryable: true };
    const allowed = step.retries ?? state.config.retry_failed_steps;
    if (!rt.on_fallback && error.retryable && rt.retries_used < allowed) {
      const delay_ms = Math.round(state.config.retry_delay * 1000 * 2 ** rt.retries_used);
      return draft(
        'StepRetried',
        { step_id: id, attempt: rt.attempt + 1, retry_at: ctx.now + delay_ms, delay_ms, error },
        { step_id: id },
      );
    }
    if (step.fallback_action && !rt.fallback_used) return schedule(state, ctx, step, rt, true);
    const handled = state.graph!.writes[state.graph!.index.get(id)!]?.failure != null;
    return draft('StepFailed', { step_id: id, error, handled }, { step_id: id });
  }
  return null;
}

/** The run-level failure strategy (`on_step_failure`, `continue_on_failure`) for a failed step. */
function decideRunFailure(state: RunState): EventDraft | null {
  const id = first(state.unhandled_failures);
  if (id === undefined) return null;
  const { on_step_failure, continue_on_failure } = state.config;
  if (on_step_failure === 'replan') return decideRevision(state, id);
  if (on_step_failure === 'skip') {
    return draft(
      'StepSkipped',
      { step_id: id, reason: 'failure_strategy', detail: 'on_step_failure: skip' },
      { step_id: id },
    );
  }
  if (continue_on_failure) return null;
  const rt = state.steps.get(id)!;
  const error = rt.error ?? { code: 'tool_error', message: 'failed', retryable: false };
  return draft('RunTerminated', {
    status: 'failed',
    reason: `step_failed`,
    error: { code: 'step_failed', message: `Step "${id}" failed: ${error.message}`, retryable: false },
  });
}

/**
 * A failed step under `on_step_failure: "replan"`: the revision strategy decides — skip it, stop, ask
 * a person, or ask the planner for a new version of the rest of the plan (counted against
 * `max_revisions`, after which the run fails with `Max replans exceeded`).
 */
function decideRevision(state: RunState, id: string): EventDraft {
  const { revision_strategy, allow_revision, max_revisions } = state.config;
  const rt = state.steps.get(id)!;
  const why = `step "${id}" failed: ${rt.error?.message ?? 'failed'}`;
  if (revision_strategy === 'skip_and_continue') {
    return draft(
      'StepSkipped',
      { step_id: id, reason: 'failure_strategy', detail: 'skip_and_continue' },
      { step_id: id },
    );
  }
  if (revision_strategy === 'abort' || !allow_revision) {
    return draft('RunTerminated', {
      status: 'aborted',
      reason: 'revision_abort',
      error: { code: 'step_failed', message: `Stopped: ${why}`, retryable: false },
    });
  }
  if (revision_strategy === 'ask_user') {
    return draft(
      'InputRequested',
      { reason: `${why}; how should the run continue?`, step_id: id },
      { step_id: id },
    );
  }
  if (state.revision_count >= max_revisions) {
    return draft('RunTerminated', {
      status: 'failed',
      reason: 'max_revisions',
      error: {
        code: 'max_revisions',
        message: `Max replans exceeded (${max_revisions}); last: ${why}`,
        retryable: false,
      },
    });
  }
  return draft(
    'RevisionRequested',
    { trigger: 'step_failure', reason: why, step_id: id, strategy: revision_strategy },
    { step_id: id },
  );
}

/** Attempt deadlines that passed, and retries whose backoff is over. */
function decideTimers(state: RunState, ctx: DecideContext): EventDraft | null {
  for (const [id, at] of state.timers) {
    if (at > ctx.now) continue;
    const rt = state.steps.get(id)!;
    if (rt.status === 'running') return timeoutReturn(state, id, rt);
    if (rt.status === 'pending' && rt.retry_at !== null && capacity(state) > 0) {
      return schedule(state, ctx, stepDef(state, id), rt, rt.on_fallback);
    }
  }
  return null;
}

/** Ready steps, in plan order, while there is capacity: skipped when they cannot run, else scheduled. */
function decideReady(state: RunState, ctx: DecideContext): EventDraft | null {
  const graph = state.graph!;
  while (state.ready.size > 0) {
    const idx = state.ready.peek()!;
    const id = graph.ids[idx]!;
    const rt = state.steps.get(id)!;
    if ((rt.status !== 'pending' && rt.status !== 'revised') || rt.retry_at !== null) {
      state.ready.pop(); // stale entry: the step moved on since it was queued (derived data, not state)
      continue;
    }
    const step = state.plan!.steps[idx]!;
    const skip = skipReason(state, ctx, idx, step);
    if (skip) return draft('StepSkipped', { step_id: id, ...skip }, { step_id: id });
    if (capacity(state) <= 0) return null;
    return schedule(state, ctx, step, rt, false);
  }
  return null;
}

/** Nothing running, nothing ready, nothing waiting on a timer: the run is over. */
function decideCompletion(state: RunState, ctx: DecideContext): EventDraft | null {
  if (state.running.size > 0 || state.timers.size > 0 || state.needs_decision.size > 0) return null;
  let failed = 0;
  let unsettled = 0;
  for (const rt of state.steps.values()) {
    if (rt.status === 'failed' && !rt.handled) failed += 1;
    else if (rt.status !== 'completed' && rt.status !== 'skipped' && rt.status !== 'failed') unsettled += 1;
  }
  if (unsettled > 0) {
    return draft('RunTerminated', {
      status: 'failed',
      reason: 'stalled',
      error: { code: 'stalled', message: `${unsettled} step(s) can never become ready`, retryable: false },
    });
  }
  const final_output = finalOutput(state, ctx.results);
  if (failed > 0) {
    return draft('RunTerminated', {
      status: 'failed',
      reason: 'steps_failed',
      final_output,
      error: { code: 'steps_failed', message: `${failed} step(s) failed`, retryable: false },
    });
  }
  return draft('RunTerminated', { status: 'completed', reason: 'success', final_output });
}

/** How many more steps may start now. */
export function capacity(state: RunState): number {
  const { execution_mode, max_parallel } = state.config;
  const limit =
    execution_mode === 'sequential'
      ? 1
      : execution_mode === 'parallel'
        ? max_parallel
        : state.adaptive_window;
  return limit - state.running.size;
}

function schedule(
  state: RunState,
  ctx: DecideContext,
  step: PlanStep,
  rt: StepRuntime,
  fallback: boolean,
): EventDraft {
  const action = fallback ? fallbackAction(step) : step.action;
  const timeout = step.timeout_ms ?? state.config.step_timeout * 1000;
  return draft(
    'StepScheduled',
    {
      step_id: step.id,
      attempt: rt.attempt + 1,
      action,
      fallback,
      dispatch: ctx.dispatch(state, step),
      deadline_at: ctx.now + timeout,
    },
    { step_id: step.id },
  );
}

function timeoutReturn(state: RunState, id: string, rt: StepRuntime): EventDraft {
  const step = stepDef(state, id);
  const timeout = step.timeout_ms ?? state.config.step_timeout * 1000;
  return draft(
    'ToolReturned',
    {
      step_id: id,
      attempt: rt.attempt,
      success: false,
      error: {
        code: 'timeout',
        message: `Step "${id}" attempt ${rt.attempt} timed out after ${timeout} ms`,
        retryable: true,
      },
      latency_ms: timeout,
    },
    { step_id: id },
  );
}

/** Why a ready step cannot run: a dependency failed, its `when` is false, or an input was never written. */
function skipReason(
  state: RunState,
  ctx: DecideContext,
  idx: number,
  step: PlanStep,
): { reason: 'dependency_failed' | 'when_false' | 'missing_input'; detail: string } | null {
  const graph = state.graph!;
  for (const dep of graph.deps[idx] ?? []) {
    const d = state.steps.get(dep)!;
    if (d.status === 'failed' && !d.handled)
      return { reason: 'dependency_failed', detail: `dependency "${dep}" failed` };
  }
  const scope = scopeFor(state, ctx.results, graph.refsOf(idx));
  if (step.when !== undefined && !evaluateCondition(step.when, scope)) {
    return { reason: 'when_false', detail: `when: ${step.when}` };
  }
  const resolved = resolveValue(step.parameters, scope);
  if (!resolved.ok) return { reason: 'missing_input', detail: `${resolved.missing.text} was never written` };
  return null;
}

/** A resolution scope holding only what the given references read. */
export function scopeFor(state: RunState, results: ResultStore, refs: readonly Reference[]): RefScope {
  const vars: Record<string, unknown> = {};
  for (const ref of refs) {
    const root = ref.path[0];
    if (ref.source !== 'state' || root === undefined || String(root) in vars) continue;
    const v = results.getVar(String(root));
    if (v.found) vars[String(root)] = v.value;
  }
  return {
    stepOutput: (id) =>
      state.steps.get(id)?.status === 'completed' ? results.getOutput(id) : { found: false },
    state: vars,
    input: state.input,
  };
}

/**
 * The run's final output: the output of its last step when the plan ends in one step, else the outputs
 * of every completed sink step (a step nothing depends on), by id.
 */
function finalOutput(state: RunState, results: ResultStore): unknown {
  const graph = state.graph!;
  const sinks = graph.ids.filter((_, i) => (graph.dependents[i]?.length ?? 0) === 0);
  const done = sinks.filter((id) => state.steps.get(id)!.status === 'completed');
  if (sinks.length === 1) return done.length === 1 ? (results.getOutput(done[0]!).value ?? null) : null;
  const out: Record<string, unknown> = {};
  for (const id of done) out[id] = results.getOutput(id).value ?? null;
  return out;
}

function fallbackAction(step: PlanStep): string {
  const fb = step.fallback_action!;
  return typeof fb === 'string' ? fb : fb.action;
}

/** The tool and parameters an attempt runs: the step's own, or its fallback's. */
export function actionFor(
  step: PlanStep,
  fallback: boolean,
): { action: string; parameters: Record<string, unknown> } {
  if (!fallback || !step.fallback_action) return { action: step.action, parameters: step.parameters };
  const fb = step.fallback_action;
  return typeof fb === 'string'
    ? { action: fb, parameters: step.parameters }
    : { action: fb.action, parameters: fb.parameters ?? step.parameters };
}

export function stepDef(state: RunState, id: string): PlanStep {
  return state.plan!.steps[state.graph!.index.get(id)!]!;
}

function runStopped(state: RunState): ErrorInfo {
  return {
    code: 'run_terminated',
    message: `Run ${state.run_id} stopped (${state.status})`,
    retryable: false,
  };
}

function first<T>(set: Set<T>): T | undefined {
  for (const v of set) return v;
  return undefined;
}
