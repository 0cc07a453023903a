/**
 * The fold: apply one event to the run state. This is the only code that changes a run's state, live
 * and in replay alike, so replay cannot drift from what happened. Deterministic: it reads nothing but
 * the state, the event and the result store — no clock, no ids, no I/O. Its parts with a job of their
 * own are beside it: installing a plan (install-plan.ts), step readiness (step-readiness.ts), writes
 * to state variables (state-path-write.ts) and stages (evolve-stage.ts).
 */
import { stagePlanned, stageStarted } from './evolve-stage';
import { isRecord } from '../plan/model';
import { failureAction } from './failure-answer';
import { TEA_END } from '../plan/tea-meta';
import type { RunEvent, SkipReason } from './events';
import { installPlan, withStreamedStep } from './install-plan';
import { newStepRuntime, type ResultStore, type RunState, type StepRuntime } from './state';
import { writeStatePath } from './state-path-write';
import { isSettled, resume, settle, stepOf, touch } from './step-readiness';

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
      state.approval = {
        deadline_at: state.approval?.deadline_at ?? null,
        decision: 'granted',
        by: event.payload.by,
      };
      state.status = 'running';
      state.started_at ??= event.timestamp;
      return;
    case 'ApprovalRejected':
      state.approval = {
        deadline_at: state.approval?.deadline_at ?? null,
        decision: 'rejected',
        by: event.payload.by,
      };
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
      const { reason, step_id, schema } = event.payload;
      state.status = 'awaiting_input';
      state.awaiting = {
        reason,
        ...(step_id === undefined ? {} : { step_id }),
        ...(schema === undefined ? {} : { schema }),
        seq: event.seq,
      };
      return;
    }
    case 'ToolInvoked': {
      const p = event.payload;
      const rt = stepOf(state, p.step_id);
      rt.invoked = true;
      if (event.references.tool_version === undefined) delete rt.tool_version;
      else rt.tool_version = event.references.tool_version;
      // Stored: an object loaded again (a crash, an eviction) must know the attempt began, or sending
      // it again records a second ToolInvoked for the same attempt.
      touch(state, p.step_id);
      if (p.deadline_at !== undefined) {
        rt.deadline_at = p.deadline_at;
        rt.limit_ms = p.limit_ms ?? null;
        state.timers.set(p.step_id, p.deadline_at);
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
      {
        // An answer to a failed step's question (it names no step): kept to tell a later answerer.
        const about = state.awaiting?.step_id;
        if (
          event.payload.step_id === undefined &&
          about !== undefined &&
          state.steps.get(about)?.status === 'failed'
        ) {
          const by = event.payload.answered_by;
          const asked = state.awaiting?.seq;
          state.failure_answered = {
            step_id: about,
            action: failureAction(event.payload.input),
            ...(by === undefined ? {} : { answered_by: by }),
            ...(asked === undefined ? {} : { question_seq: asked }),
          };
        }
        // An answer to a person's question (it names the step asking): kept to tell a later answerer.
        if (event.payload.step_id !== undefined && event.payload.step_id === about) {
          const by = event.payload.answered_by;
          const asked = state.awaiting?.seq;
          state.question_answered = {
            step_id: about,
            answered_at: event.timestamp,
            ...(by === undefined ? {} : { answered_by: by }),
            ...(asked === undefined ? {} : { question_seq: asked }),
          };
        }
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
      // The attempt before may have run another tool (the fallback's): this one names its own.
      delete rt.tool_version;
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
      state.limit_reached = null;
      return;
    }
    case 'RunTerminated': {
      const p = event.payload;
      state.status = p.status;
      state.completed_at = event.timestamp;
      state.final_output = p.final_output ?? null;
      state.error = p.error ?? null;
      state.termination_reason = p.reason;
      state.limit_reached = p.limit ?? null;
      addTokens(state, p.tokens);
      state.streaming = false;
      state.deferred_revision = null;
      state.ready.clear();
      // Steps that never started can no longer run: skipped, saying why (a retry reopens them) — and a
      // queue attempt no consumer began (consumers record the begin before calling the tool, and an
      // ended run begins nothing), which would read `running` until its deadline. Running ones keep
      // their status until their attempt's outcome is recorded.
      const reason: SkipReason = p.status === 'cancelled' ? 'cancelled' : 'run_terminated';
      for (const [id, rt] of state.steps) {
        const unbegun =
          rt.status === 'running' && rt.dispatch === 'queue' && !rt.invoked && !state.needs_decision.has(id);
        if (unbegun) state.running.delete(id);
        else if (rt.status !== 'pending' && rt.status !== 'blocked' && rt.status !== 'revised') continue;
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
