/**
 * The scheduler's decisions (SPEC §4), as data: given the state, what happens next — one event at a
 * time. Pure: it reads the state, the result store and `now`, and never changes anything; the machine
 * applies each decision with `evolve` before asking for the next one.
 */
import { DEFAULT_MAX_TURNS } from './react-turn';
import { iterativeLimit, planIsFull } from './turn-limit';
import { decideNextStage } from './decide-stage';
import { declaredFinalOutput } from '../plan/final-output';
import type { ErrorInfo } from '../errors';
import { evaluateCondition } from '../plan/conditions';
import { TERMINAL_RUN_STATUSES, type PlanStep } from '../plan/model';
import { resolveValue, type RefScope, type Reference } from '../plan/references';
import { draft, type EventDraft } from './events';
import { notWaitedFor, retryDelayMs } from './retry-delay';
import { returnedReferences } from './returned-payload';
import type { DecideContext } from './decide-context';
import {
  decideApproval,
  decideDeferredRevision,
  decideFailureRate,
  decideRevision,
  decideTokenBudget,
} from './decide-revision';
import { decideNavigation } from './tea-navigation';
import { actionFor, retriesLeft, stepDef, stepTimeoutMs } from './step-definition';

export type { DecideContext } from './decide-context';
export { revisionAllowed, revisionPossible } from './decide-revision';
import type { ResultStore, RunState, StepRuntime } from './state';

/** The next event the run should record, or null when there is nothing to do until the next input. */
export function decideNext(state: RunState, ctx: DecideContext): EventDraft | null {
  // While a revision is on its way, or a person's answer or decision, attempts in flight finish but
  // nothing new starts: a failure is retried (once the run goes on), falls back or fails, a deadline
  // times out. A run awaiting input was taken for a stopped one (a failure there was not retried, and
  // a step waiting for its retry was skipped, `run_terminated`, the moment the question was asked),
  // and one awaiting the approval of a revision left an attempt past its deadline running.
  if (state.status === 'awaiting_approval')
    return decideApproval(state, ctx) ?? decideFailures(state, ctx) ?? decideTimeouts(state, ctx);
  if (state.status === 'awaiting_input' || (state.status === 'running' && state.revising))
    return decideFailures(state, ctx) ?? decideTimeouts(state, ctx);
  if (state.status !== 'running') return decideWhenStopped(state, ctx);
  return (
    decideFailures(state, ctx) ??
    decideTokenBudget(state, ctx) ??
    decideRunFailure(state) ??
    decideDeferredRevision(state, ctx) ??
    decideFailureRate(state, ctx) ??
    decideTimers(state, ctx) ??
    decideNavigation(state, ctx) ??
    decideReady(state, ctx) ??
    decideCompletion(state, ctx)
  );
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
    // An attempt cut short by a cancellation did not fail: the run stopped it.
    if (state.status === 'cancelled') {
      const detail = rt.error?.message ?? 'the run was cancelled';
      return draft('StepSkipped', { step_id: id, reason: 'cancelled', detail }, { step_id: id });
    }
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
    let error = rt.error ?? { code: 'tool_error', message: 'failed', retryable: true };
    if (error.retryable && retriesLeft(state, step, rt) > 0) {
      const delay_ms = retryDelayMs(state.config.retry_delay, rt.retries_used, error);
      if (delay_ms !== null) {
        return draft(
          'StepRetried',
          { step_id: id, attempt: rt.attempt + 1, retry_at: ctx.now + delay_ms, delay_ms, error },
          { step_id: id },
        );
      }
      error = notWaitedFor(error);
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
  // A revision (or a question to a person) needs the whole plan: while steps still stream in, a
  // new version would be overwritten by the stream's own plan when it ends. The failure waits for it.
  if (on_step_failure === 'replan') return state.streaming ? null : decideRevision(state, id);
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
  if (state.streaming) return null; // more steps are on their way
  if (state.judging.length > 0) return null; // a verdict may still ask for a revision
  const turn = decideNextTurn(state, ctx);
  if (turn) return turn;
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
  // Ended by a limit, not by the model: still a success (SPEC's reasons), with the limit said.
  const limit = turnStrategy(state, ctx) === 'iterative' ? iterativeLimit(state) : null;
  return draft('RunTerminated', {
    status: 'completed',
    reason: 'success',
    final_output,
    ...(limit ? { limit } : {}),
  });
}

/** The strategy whose next turn is due now that a turn's steps are done, or null when none is. */
function turnStrategy(state: RunState, ctx: DecideContext): 'iterative' | 'react' | null {
  const strategy = state.plan?.strategy;
  if ((strategy !== 'iterative' && strategy !== 'react') || !ctx.canRevise || state.turn_settled) return null;
  if (declaredFinalOutput(state.plan).found) return null; // the model answered: this was the last turn
  if (state.unhandled_failures.size > 0) return null;
  return strategy;
}

/**
 * Iterative and ReAct runs (seed 004's plan as context): when a turn's steps are done, the planner
 * sees the plan and the state and follows, extends or replaces it — until a turn changes nothing, a
 * step failed, or `max_steps` turns were taken.
 */
function decideNextTurn(state: RunState, ctx: DecideContext): EventDraft | null {
  if (state.config.strategy === 'staged' && state.stage >= 0)
    return decideNextStage(state, ctx, (refs) => scopeFor(state, ctx.results, refs));
  const strategy = turnStrategy(state, ctx);
  if (strategy === null) return null;
  if (strategy === 'react') {
    // One tool call a turn, the first plan's included: the budget is spent after max_turns of them —
    // or once the plan has max_steps steps, when the next call would be refused as too_many_steps.
    const budget = state.config.max_turns ?? DEFAULT_MAX_TURNS;
    const full = planIsFull(state);
    if (state.turns + 1 >= budget || full) {
      const message = full
        ? `The model still wanted to act after ${state.turns + 1} turn(s), and the plan has max_steps (${state.config.max_steps}) steps, so it may take no more; the exit criteria were not met`
        : `The model still wanted to act after ${budget} turn(s) (max_turns); the exit criteria were not met`;
      return draft('RunTerminated', {
        status: 'failed',
        reason: 'turn_budget_exhausted',
        final_output: finalOutput(state, ctx.results),
        error: { code: 'turn_budget_exhausted', message, retryable: false },
      });
    }
  } else if (iterativeLimit(state)) return null; // ends `success`, the limit said (decideCompletion)
  const reason =
    strategy === 'react'
      ? `ReAct turn ${state.turns + 1} of ${state.config.max_turns ?? DEFAULT_MAX_TURNS}: from the observations so far (the results of the steps taken), think, then add exactly ONE new step — the next tool call — with your reasoning as its description ("Thought: …"); keep the steps already taken as they are. Return the plan unchanged when the exit criteria are met`
      : `turn ${state.turns + 1}: given the plan and the state so far, follow, extend or replace the plan; return it unchanged when the goal is met`;
  return draft('RevisionRequested', { trigger: 'next_turn', reason, strategy: 'replan_remaining' });
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
  const { action } = actionFor(step, fallback);
  const timeout = stepTimeoutMs(state, step);
  return draft(
    'StepScheduled',
    {
      step_id: step.id,
      attempt: rt.attempt + 1,
      action,
      fallback,
      dispatch: ctx.dispatch(state, step, action),
      deadline_at: ctx.now + timeout,
    },
    { step_id: step.id },
  );
}

function timeoutReturn(state: RunState, id: string, rt: StepRuntime): EventDraft {
  // A tool with its own limit (a child run, a person's answer) moved the deadline by that limit.
  const timeout = rt.limit_ms ?? stepTimeoutMs(state, stepDef(state, id));
  const payload = {
    step_id: id,
    attempt: rt.attempt,
    success: false,
    error: {
      code: 'timeout',
      message: `Step "${id}" attempt ${rt.attempt} timed out after ${timeout} ms`,
      retryable: true,
    },
    latency_ms: timeout,
  };
  // An attempt still in flight when the run ended, timed out since: said so, as a late result is.
  const ended = TERMINAL_RUN_STATUSES.has(state.status);
  return draft(
    'ToolReturned',
    ended ? { ...payload, after_run_ended: true } : payload,
    returnedReferences(state, id),
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
  // defineProperty: a variable named `__proto__` (a merged key) is data.
  const put = (key: string, value: unknown) =>
    Object.defineProperty(vars, key, { value, enumerable: true, writable: true, configurable: true });
  for (const ref of refs) {
    if (ref.source !== 'state') continue;
    const root = ref.path[0];
    if (root === undefined) {
      // `{{ state }}` reads the whole state: every variable.
      for (const key of results.varKeys()) if (!Object.hasOwn(vars, key)) put(key, results.getVar(key).value);
      continue;
    }
    if (Object.hasOwn(vars, String(root))) continue;
    const v = results.getVar(String(root));
    if (v.found) put(String(root), v.value);
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
  const declared = declaredFinalOutput(state.plan);
  if (declared.found) return declared.value;
  const graph = state.graph!;
  const sinks = graph.ids.filter((_, i) => (graph.dependents[i]?.length ?? 0) === 0);
  const done = sinks.filter((id) => state.steps.get(id)!.status === 'completed');
  if (sinks.length === 1) return done.length === 1 ? (results.getOutput(done[0]!).value ?? null) : null;
  const out: Record<string, unknown> = {};
  for (const id of done) out[id] = results.getOutput(id).value ?? null;
  return out;
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
