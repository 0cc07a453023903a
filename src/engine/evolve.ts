/**
 * The fold: apply one event to the run state. This is the only code that changes a run's state, live
 * and in replay alike, so replay cannot drift from what happened. Deterministic: it reads nothing but
 * the state, the event and the result store — no clock, no ids, no I/O.
 */
import { stagePlanned, stageStarted } from './evolve-stage';
import { buildGraph } from '../plan/graph';
import { isRecord } from '../plan/model';
import type { PathSegment } from '../plan/references';
import { TEA_END, teaMetaOf } from '../plan/tea-meta';
import type { RunEvent, SkipReason } from './events';
import { newStepRuntime, type ResultStore, type RunState, type StepRuntime } from './state';

export function evolve(state: RunState, event: RunEvent, results: ResultStore): void {
  state.seq = event.seq;
  switch (event.event_type) {
    case 'RunCreated': {
      const p = event.payload;
      state.run_id = p.run_id;
      state.goal = p.goal;
      state.config = p.config;
      state.input = p.input;
      state.created_at = event.timestamp;
      for (const [k, v] of Object.entries(p.state ?? {})) results.setVar(k, v);
      return;
    }
    case 'StepStreamed': {
      state.streaming = true;
      if (state.status === 'planning') {
        state.status = 'running';
        state.started_at ??= event.timestamp;
      }
      installPlan(state, withStreamedStep(state.plan, state, event), false);
      return;
    }
    case 'PlanAuthored':
      state.streaming = false;
      installPlan(state, event.payload.plan, false);
      addTokens(state, event.payload.tokens);
      // A staged run's first plan is its first stage's.
      stagePlanned(
        state,
        event.payload.plan.steps.map((s) => s.id),
      );
      return;
    case 'PlanUpdated': {
      const { plan, kind } = event.payload;
      addTokens(state, event.payload.tokens);
      installPlan(state, plan, kind !== 'approval_edit');
      if (kind === 'revision') state.revision_count += 1;
      if (kind === 'turn') state.turn_settled = event.payload.changed_steps.length === 0;
      if (kind === 'turn') stagePlanned(state, event.payload.changed_steps);
      state.revising = null;
      state.failures_since_revision = 0;
      return;
    }
    case 'ApprovalGranted':
      state.approval = { deadline_at: state.approval?.deadline_at ?? null, decision: 'granted' };
      state.status = 'running';
      state.started_at ??= event.timestamp;
      return;
    case 'ApprovalRejected':
      state.approval = { deadline_at: state.approval?.deadline_at ?? null, decision: 'rejected' };
      return;
    case 'RevisionRequested': {
      const { trigger, reason, step_id } = event.payload;
      if (event.payload.deferred) {
        state.deferred_revision = step_id === undefined ? { trigger, reason } : { trigger, reason, step_id };
        return;
      }
      state.deferred_revision = null;
      if (trigger === 'token_budget') state.budget_warned = true;
      if (trigger === 'next_turn') state.turns += 1;
      state.revising = step_id === undefined ? { trigger, reason } : { trigger, reason, step_id };
      return;
    }
    case 'InputRequested': {
      const { reason, step_id } = event.payload;
      state.status = 'awaiting_input';
      state.awaiting = step_id === undefined ? { reason } : { reason, step_id };
      return;
    }
    case 'ToolInvoked': {
      const p = event.payload;
      const rt = stepOf(state, p.step_id);
      rt.invoked = true;
      if (p.deadline_at !== undefined) {
        rt.deadline_at = p.deadline_at;
        rt.limit_ms = p.limit_ms ?? null;
        state.timers.set(p.step_id, p.deadline_at);
        touch(state, p.step_id);
      }
      return;
    }
    case 'ReflectionRequested':
      state.judging = [...state.judging, event.payload.step_id];
      return;
    case 'ReflectionAdded': {
      addTokens(state, event.payload.tokens);
      const id = event.payload.step_id;
      if (id !== undefined) state.judging = state.judging.filter((j) => j !== id);
      // A ReAct run whose exit criteria are met takes no further turn.
      if (event.payload.exit_criteria_met === true && state.plan?.strategy === 'react')
        state.turn_settled = true;
      return;
    }
    case 'StageStarted':
      stageStarted(state, event);
      return;
    case 'StageCompleted':
      state.stage_open = false;
      return;
    case 'PlanValidated':
    case 'ApprovalWebhookAttempted':
      return;
    case 'InputReceived':
      if (event.payload.step_id === undefined && isRecord(event.payload.input)) {
        for (const [k, v] of Object.entries(event.payload.input)) results.setVar(k, v);
      }
      if (state.status === 'awaiting_input') state.status = 'running';
      state.awaiting = null;
      return;
    case 'RunStarted':
      state.status = 'running';
      state.started_at ??= event.timestamp;
      return;
    case 'ApprovalRequested':
      state.status = 'awaiting_approval';
      state.approval = { deadline_at: event.payload.deadline_at, decision: 'pending' };
      return;
    case 'StepScheduled': {
      const p = event.payload;
      const rt = stepOf(state, p.step_id);
      state.needs_decision.delete(p.step_id);
      rt.status = 'running';
      rt.attempt = p.attempt;
      rt.on_fallback = p.fallback;
      rt.dispatch = p.dispatch;
      if (p.fallback) rt.fallback_used = true;
      rt.invoked = false;
      rt.retry_at = null;
      rt.deadline_at = p.deadline_at;
      rt.limit_ms = null;
      rt.started_at ??= event.timestamp;
      state.running.add(p.step_id);
      state.timers.set(p.step_id, p.deadline_at);
      touch(state, p.step_id);
      return;
    }
    case 'ToolReturned': {
      const p = event.payload;
      const rt = stepOf(state, p.step_id);
      state.running.delete(p.step_id);
      state.timers.delete(p.step_id);
      rt.deadline_at = null;
      rt.latency_ms = p.latency_ms;
      addTokens(state, p.tokens);
      if (p.success) {
        rt.status = 'completed';
        rt.error = null;
        rt.finished_at = event.timestamp;
        results.setOutput(p.step_id, p.output ?? null);
        const writes = state.graph!.writes[state.graph!.index.get(p.step_id)!];
        if (writes?.success) writeStatePath(results, writes.success, p.output ?? null);
        state.adaptive_window = Math.min(state.adaptive_window + 1, state.config.max_parallel);
        settle(state, p.step_id);
      } else {
        // Stays `running` until the failure decision (retry, fallback, fail) is recorded.
        rt.error = p.error ?? { code: 'tool_error', message: 'failed', retryable: true };
        state.adaptive_window = Math.max(1, Math.floor(state.adaptive_window / 2));
        state.needs_decision.add(p.step_id);
        // The question the run waited on lapsed (a person's answer that never came): the run goes on,
        // and the step's failure is decided as any other's (retry, fallback, on_step_failure). It
        // stayed `awaiting_input` for good before, deciding nothing.
        if (state.status === 'awaiting_input' && state.awaiting?.step_id === p.step_id) {
          state.status = 'running';
          state.awaiting = null;
        }
      }
      touch(state, p.step_id);
      return;
    }
    case 'StepRedispatched': {
      const p = event.payload;
      const rt = stepOf(state, p.step_id);
      rt.dispatch = p.dispatch;
      rt.deadline_at = p.deadline_at;
      state.timers.set(p.step_id, p.deadline_at);
      touch(state, p.step_id);
      return;
    }
    case 'StepRetried': {
      const p = event.payload;
      const rt = stepOf(state, p.step_id);
      state.needs_decision.delete(p.step_id);
      rt.status = 'pending';
      rt.retries_used += 1;
      rt.retry_at = p.retry_at;
      rt.error = p.error;
      state.timers.set(p.step_id, p.retry_at);
      touch(state, p.step_id);
      return;
    }
    case 'StepFailed': {
      const p = event.payload;
      const rt = stepOf(state, p.step_id);
      state.needs_decision.delete(p.step_id);
      state.running.delete(p.step_id);
      state.timers.delete(p.step_id);
      rt.status = 'failed';
      rt.error = p.error;
      rt.handled = p.handled;
      state.failures_since_revision += 1;
      rt.deadline_at = null;
      rt.finished_at = event.timestamp;
      if (p.handled) {
        const writes = state.graph!.writes[state.graph!.index.get(p.step_id)!];
        if (writes?.failure) writeStatePath(results, writes.failure, p.error);
      } else {
        state.unhandled_failures.add(p.step_id);
      }
      touch(state, p.step_id);
      settle(state, p.step_id);
      return;
    }
    case 'StepSkipped': {
      const p = event.payload;
      const rt = stepOf(state, p.step_id);
      const wasSettled = isSettled(rt);
      state.unhandled_failures.delete(p.step_id);
      state.needs_decision.delete(p.step_id);
      state.running.delete(p.step_id);
      state.timers.delete(p.step_id);
      rt.status = 'skipped';
      rt.skip_reason = p.reason;
      rt.deadline_at = null;
      rt.retry_at = null;
      rt.finished_at = event.timestamp;
      touch(state, p.step_id);
      if (!wasSettled) settle(state, p.step_id);
      return;
    }
    case 'NodeEntered': {
      const { node, visit } = event.payload;
      state.nav_at = node;
      if (node === TEA_END) return;
      const rt = stepOf(state, node);
      // Entering a node makes it ready; a second visit starts it over as a new attempt, keeping only
      // what identifies its attempts (their count, key version) and what the last one measured.
      const again: StepRuntime = {
        ...newStepRuntime(),
        status: 'pending',
        visit,
        attempt: rt.attempt,
        key_version: rt.key_version,
        dispatch: rt.dispatch,
        started_at: rt.started_at,
        latency_ms: rt.latency_ms,
      };
      state.steps.set(node, again);
      state.unhandled_failures.delete(node);
      state.ready.push(state.graph!.index.get(node)!);
      touch(state, node);
      return;
    }
    case 'RunResumed': {
      resume(state, event.payload.step_ids);
      // A run with no plan (its planning failed) is planned again.
      state.status = state.plan ? 'running' : 'planning';
      state.completed_at = null;
      state.final_output = null;
      state.error = null;
      state.termination_reason = null;
      return;
    }
    case 'RunTerminated': {
      const p = event.payload;
      state.status = p.status;
      state.completed_at = event.timestamp;
      state.final_output = p.final_output ?? null;
      state.error = p.error ?? null;
      state.termination_reason = p.reason;
      addTokens(state, p.tokens);
      state.streaming = false;
      state.deferred_revision = null;
      state.ready.clear();
      // Steps that never started can no longer run: skipped, saying why (a retry reopens them).
      // Running ones keep their status until their attempt's outcome is recorded.
      const reason: SkipReason = p.status === 'cancelled' ? 'cancelled' : 'run_terminated';
      for (const [id, rt] of state.steps) {
        if (rt.status !== 'pending' && rt.status !== 'blocked' && rt.status !== 'revised') continue;
        rt.status = 'skipped';
        rt.skip_reason = reason;
        rt.retry_at = null;
        rt.finished_at = event.timestamp;
        state.timers.delete(id);
        touch(state, id);
      }
      return;
    }
  }
}

function addTokens(state: RunState, tokens: { prompt: number; completion: number } | undefined): void {
  if (!tokens) return;
  state.token_usage.prompt_tokens += tokens.prompt;
  state.token_usage.completion_tokens += tokens.completion;
  state.token_usage.total_tokens += tokens.prompt + tokens.completion;
}

/** A dependency is settled once it can no longer change: completed, skipped or failed. */
export function isSettled(rt: StepRuntime): boolean {
  return rt.status === 'completed' || rt.status === 'skipped' || rt.status === 'failed';
}

function stepOf(state: RunState, id: string): StepRuntime {
  const rt = state.steps.get(id);
  if (!rt) throw new Error(`Event names step "${id}", which is not in plan ${state.plan?.id ?? '(none)'}`);
  return rt;
}

function touch(state: RunState, id: string): void {
  state.dirty.add(id);
}

/** Tells the dependents of a step that settled; the ones with nothing left to wait for become ready. */
function settle(state: RunState, id: string): void {
  const graph = state.graph!;
  const idx = graph.index.get(id)!;
  for (const dep of graph.dependents[idx] ?? []) {
    const rt = state.steps.get(dep)!;
    rt.waiting -= 1;
    touch(state, dep);
    if (rt.waiting === 0 && (rt.status === 'blocked' || rt.status === 'revised')) makeReady(state, dep, rt);
  }
}

function makeReady(state: RunState, id: string, rt: StepRuntime): void {
  if (rt.status === 'blocked') rt.status = 'pending';
  state.ready.push(state.graph!.index.get(id)!);
}

/**
 * Installs a plan (first or revised). Steps that keep their id keep their runtime — completed work is
 * never lost, a running attempt keeps running. On a revision, every other step that changed, failed or
 * was skipped is `revised`: it will run (again) under the new plan. Removed steps are forgotten (their
 * late results are ignored), and every unsettled step's wait count is recomputed against the new graph.
 */
/**
 * The plan streamed in so far (`plan`, null before the first step) with the event's step added. The
 * plan being streamed has the run's strategy and exit criteria already, so a `par` run reflects on a
 * step that finishes before the stream does.
 */
export function withStreamedStep(
  plan: RunState['plan'],
  state: Pick<RunState, 'goal' | 'config'>,
  event: RunEvent<'StepStreamed'>,
): NonNullable<RunState['plan']> {
  const { step, plan_id } = event.payload;
  const criteria = state.config.planning?.success_criteria;
  const base = plan ?? {
    id: plan_id,
    version: 1,
    goal: state.goal,
    strategy: state.config.strategy ?? 'flat',
    steps: [],
    created_at: event.timestamp,
    ...(criteria !== undefined ? { success_criteria: criteria } : {}),
  };
  return { ...base, steps: [...base.steps, step] };
}

function installPlan(state: RunState, plan: NonNullable<RunState['plan']>, reopen: boolean): void {
  const previous = state.steps;
  const before = new Map(state.plan?.steps.map((s) => [s.id, JSON.stringify(s)]) ?? []);
  state.plan = plan;
  state.graph = buildGraph(plan.steps);
  state.steps = new Map();
  state.ready.clear();
  for (const step of plan.steps) {
    const old = previous.get(step.id);
    const changed = old !== undefined && before.get(step.id) !== JSON.stringify(step);
    let rt: StepRuntime = old ?? newStepRuntime();
    if (
      old &&
      old.status !== 'completed' &&
      old.status !== 'running' &&
      (changed || (reopen && isSettled(old)))
    ) {
      rt = {
        ...old,
        status: 'revised',
        retries_used: 0,
        fallback_used: false,
        error: null,
        handled: false,
        skip_reason: null,
        finished_at: null,
        retry_at: null,
      };
    }
    // A step a later version added or replaced is a new effect: its idempotency key says which version.
    if (plan.version > 1 && (old === undefined || changed)) rt = { ...rt, key_version: plan.version };
    state.steps.set(step.id, rt);
    touch(state, step.id);
  }
  for (const id of previous.keys()) {
    if (state.steps.has(id)) continue;
    state.dirty.add(id);
    state.running.delete(id);
    state.timers.delete(id);
    state.needs_decision.delete(id);
  }
  state.unhandled_failures.clear();
  for (const [id, rt] of state.steps) {
    if (rt.status === 'failed' && !rt.handled) state.unhandled_failures.add(id);
    if (rt.status !== 'running' && rt.retry_at === null) state.timers.delete(id);
  }
  recountWaiting(
    state,
    plan.steps.map((s) => s.id),
  );
}

/** Recomputes `waiting` for the given steps; those with nothing to wait for become ready. */
function recountWaiting(state: RunState, ids: readonly string[]): void {
  const graph = state.graph!;
  // A TEA graph run's nodes wait for navigation to enter them (NodeEntered), not for dependencies.
  const navigated = teaMetaOf(state.plan)?.graph !== undefined;
  for (const id of ids) {
    const rt = state.steps.get(id)!;
    if (isSettled(rt) || rt.status === 'running') continue;
    if (navigated && rt.status === 'blocked') continue;
    let waiting = 0;
    for (const dep of graph.deps[graph.index.get(id)!] ?? []) {
      if (!isSettled(state.steps.get(dep)!)) waiting += 1;
    }
    rt.waiting = waiting;
    if (rt.retry_at === null && waiting === 0) makeReady(state, id, rt);
    else if (rt.status === 'pending' && rt.retry_at === null) rt.status = 'blocked';
  }
}

function resume(state: RunState, ids: readonly string[]): void {
  const navigated = teaMetaOf(state.plan)?.graph !== undefined;
  for (const id of ids) {
    const rt = stepOf(state, id);
    state.unhandled_failures.delete(id);
    // A graph run's node that was entered runs again; one never entered waits for navigation.
    rt.status = navigated && rt.visit > 0 ? 'pending' : 'blocked';
    rt.retries_used = 0;
    rt.fallback_used = false;
    rt.on_fallback = false;
    rt.handled = false;
    rt.error = null;
    rt.skip_reason = null;
    rt.finished_at = null;
    rt.retry_at = null;
    touch(state, id);
  }
  recountWaiting(state, ids);
}

/**
 * Writes `value` at a state path: the first segment is one variable, deeper segments are set inside
 * it. The empty path (`output_path: "state"`) merges: each own key of `value` becomes a variable,
 * replacing its value. The machine fails a step whose output cannot be merged before it is
 * recorded (see `mergeError`), so a non-object here changes nothing.
 */
export function writeStatePath(results: ResultStore, path: readonly PathSegment[], value: unknown): void {
  const [root, ...rest] = path;
  if (root === undefined) {
    if (isRecord(value)) for (const key of Object.keys(value)) results.setVar(key, value[key]);
    return;
  }
  const key = String(root);
  if (rest.length === 0) {
    results.setVar(key, value);
    return;
  }
  const current = results.getVar(key);
  const top: unknown =
    current.found && typeof current.value === 'object' && current.value !== null
      ? structuredClone(current.value)
      : {};
  let node = top as Record<string | number, unknown>;
  for (let i = 0; i < rest.length - 1; i++) {
    const seg = rest[i]!;
    const next = node[seg];
    if (typeof next !== 'object' || next === null) node[seg] = {};
    node = node[seg] as Record<string | number, unknown>;
  }
  node[rest[rest.length - 1]!] = value;
  results.setVar(key, top);
}
