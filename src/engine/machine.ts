/**
 * The run machine: inputs in, events and commands out. Each input becomes zero or more events
 * (validated against the state first, so duplicates and stale results are ignored), each event is
 * folded into the state with `evolve`, and `decideNext` is asked what follows until it has nothing
 * more to say. The owner (Durable Object or in-process runner) persists the events and carries the
 * commands out; it never changes the state itself.
 */
import type { Estimates } from '../plan/estimates';
import { exitVerdict, reactTurn, thoughtEvent } from './react-turn';
import { DEFAULT_APPROVAL_TIMEOUT_S, stagesOf } from '../plan/config';
import { TERMINAL_RUN_STATUSES, type Plan } from '../plan/model';
import { pinEnvNames } from '../plan/tea-meta';
import { actionFor, decideNext, revisionPossible, stepDef } from './decide';
import type { EventDraft, EventReferences, RunEvent, TokenCount } from './events';
import { evolve } from './evolve';
import { placeAttempt } from './placement';
import { answerFailure, failureAction, NO_PLANNER_TO_REPLAN } from './failure-answer';
import { changedSteps, samePlanContent } from './plan-changes';
import { checkExpected, reportUnexpected } from './output-reflection';
import { commandFor } from './event-commands';
import { notAwaited, notNow } from './status-refusals';
import { notRetryable, resumableSteps } from './retry-scope';
import { returnedPayload } from './returned-payload';
import {
  REVISION_DECLINED,
  type HandleResult,
  type MachineDeps,
  type MachineInput,
  type Refusal,
} from './machine-types';
import type { RunState } from './state';

export type * from './machine-types';

export class RunMachine {
  constructor(
    readonly state: RunState,
    private readonly deps: MachineDeps,
  ) {}

  handle(input: MachineInput): HandleResult {
    const now = this.deps.clock.now().getTime();
    const out: HandleResult = { events: [], commands: [] };
    const emit = (d: EventDraft) => this.#append(d, out);
    const refused = this.#accept(input, emit);
    if (refused) return { ...out, refused };
    if (input.type === 'create' && !input.plan) {
      // A staged run plans its first stage first.
      if (input.config.strategy === 'staged')
        emit({ type: 'StageStarted', payload: { stage: stagesOf(input.config)[0]!.name } });
      out.commands.push({ type: 'plan' });
    }
    // A retry of a run that has no plan: it is planned again, as when it was created.
    if (input.type === 'resume' && this.state.status === 'planning') out.commands.push({ type: 'plan' });
    const ctx = {
      now,
      results: this.deps.results,
      dispatch: this.deps.dispatch ?? ((state, _step, action) => placeAttempt(state, action)),
      canRevise: this.deps.canRevise ?? false,
    };
    for (let d = decideNext(this.state, ctx); d; d = decideNext(this.state, ctx)) emit(d);
    return out;
  }

  /** The earliest time the run needs waking (a retry backoff or an attempt deadline), or null. */
  nextWakeAt(): number | null {
    const a = this.state.approval;
    let min: number | null =
      this.state.status === 'awaiting_approval' && a?.decision === 'pending' ? a.deadline_at : null;
    for (const at of this.state.timers.values()) if (min === null || at < min) min = at;
    return min;
  }

  /** Turns an input into its events, or says why it does not apply. */
  #accept(input: MachineInput, emit: (d: EventDraft) => void): Refusal | undefined {
    const s = this.state;
    switch (input.type) {
      case 'create': {
        if (s.seq > 0) return { code: 'run_exists', message: `Run ${s.run_id} already exists` };
        const { run_id, goal, config, plan, estimates } = input;
        emit({
          type: 'RunCreated',
          payload: { run_id, goal, config, input: input.input, state: input.state },
        });
        if (plan) this.#author(plan, estimates, emit);
        return;
      }
      case 'streamed_step':
        if (!(s.status === 'planning' || (s.status === 'running' && s.streaming))) {
          return notNow(s, 'take streamed steps', 'planning');
        }
        if (s.steps.has(input.step.id))
          return { code: 'duplicate_step', message: `Step "${input.step.id}" already streamed in` };
        emit({
          type: 'StepStreamed',
          payload: { step: input.step, plan_id: input.plan_id },
          references: { step_id: input.step.id },
        });
        return;
      case 'planned': {
        // A model's plan reads no variable the run was not created with (tea-meta.ts).
        const planned = pinEnvNames(input.plan, null);
        if (s.streaming) {
          // The stream ended: the whole plan, validated; the steps already running keep running.
          emit({
            type: 'PlanAuthored',
            payload: input.tokens ? { plan: planned, tokens: input.tokens } : { plan: planned },
          });
          emit({ type: 'PlanValidated', payload: { valid: true, estimates: input.estimates } });
          return;
        }
        if (s.status !== 'planning' || s.plan) return notNow(s, 'receive a plan', 'planning');
        if (planned.strategy === 'react') {
          // ReAct's first turn is one tool call too: the first step of the plan, with its thought.
          const turn = reactTurn({ ...planned, steps: [] }, planned);
          emit(thoughtEvent(0, turn));
          this.#author(turn.plan, input.estimates, emit, input.tokens);
          return;
        }
        this.#author(planned, input.estimates, emit, input.tokens);
        return;
      }
      case 'planning_failed':
        if (s.status !== 'planning' && !s.streaming) return notNow(s, 'fail planning', 'planning');
        emit({
          type: 'RunTerminated',
          payload: {
            status: 'failed',
            reason: 'planning_failed',
            error: input.error,
            ...(input.tokens ? { tokens: input.tokens } : {}),
          },
        });
        return;
      case 'approval': {
        if (s.status !== 'awaiting_approval' || s.approval?.decision !== 'pending') {
          return notNow(s, 'take an approval decision', 'awaiting_approval');
        }
        const by = 'approver';
        const comment = input.comment;
        if (input.decision === 'reject') {
          emit({ type: 'ApprovalRejected', payload: { comment, by } });
          return;
        }
        if (input.decision === 'modify' && input.plan) {
          const plan = pinEnvNames(input.plan, s.plan);
          emit({
            type: 'PlanUpdated',
            payload: {
              plan,
              reason: comment ?? 'modified by the approver',
              kind: 'approval_edit',
              changed_steps: changedSteps(s.plan, plan),
            },
          });
        }
        emit({ type: 'ApprovalGranted', payload: { comment, by } });
        return;
      }
      case 'revise': {
        // A failed or aborted run can still be rolled back: a retry then runs what the new version
        // leaves open. A completed or cancelled one is over; a new version after RunTerminated
        // would describe nothing that can run.
        const finished = TERMINAL_RUN_STATUSES.has(s.status);
        const retryable = s.status === 'failed' || s.status === 'aborted';
        if (!s.plan || s.status === 'planning' || (finished && !(input.kind === 'rollback' && retryable))) {
          return notNow(
            s,
            'take a new plan version',
            input.kind === 'rollback' ? 'it runs, waits, or failed and can be retried' : 'running',
          );
        }
        const { reason, kind, tokens } = input;
        // A rollback's plan is a stored version, whose names were pinned when it was stored (v1's are
        // the creator's): it keeps them, though a version between took the TEA metadata away.
        let plan = kind === 'rollback' ? input.plan : pinEnvNames(input.plan, s.plan);
        // A rollback to the plan the run already has (sent twice, or at once) makes no new version;
        // one to a version that differs only outside its steps (a TEA node's `with:`, say) does.
        if (kind === 'rollback' && samePlanContent(s.plan, plan)) return;
        if (kind === 'turn' && s.plan.strategy === 'react') {
          // One tool call per turn: the thought and its action, then the plan with that step alone added.
          const turn = reactTurn(s.plan, plan);
          plan = turn.plan;
          emit(thoughtEvent(s.turns, turn));
        }
        const changed_steps = changedSteps(s.plan, plan);
        emit({
          type: 'PlanUpdated',
          payload: tokens
            ? { plan, reason, kind, changed_steps, tokens }
            : { plan, reason, kind, changed_steps },
        });
        return;
      }
      case 'revision_failed': {
        if (!s.revising) return;
        // A reviser that declined (a person or callback chose to stop) stops the run by strategy:
        // aborted, partial results kept. Anything else is a failure to revise.
        const declined = input.error.code === REVISION_DECLINED;
        emit({
          type: 'RunTerminated',
          payload: {
            status: declined ? 'aborted' : 'failed',
            reason: declined ? REVISION_DECLINED : 'revision_failed',
            error: input.error,
            ...(input.tokens ? { tokens: input.tokens } : {}),
          },
        });
        return;
      }
      case 'request_revision': {
        if (s.status !== 'running' && s.status !== 'awaiting_input')
          return notNow(s, 'revise its plan', 'running');
        if (s.revising)
          return { code: 'revision_in_progress', message: `Run ${s.run_id} is already being revised` };
        if (s.streaming)
          return {
            code: 'conflict',
            message: `Run ${s.run_id} is still receiving its plan from the planner; ask for a revision once the plan is complete`,
            details: { reason: 'plan_streaming', status: s.status, needed: 'the whole plan' },
          };
        if (s.revision_count >= s.config.max_revisions) {
          return {
            code: 'max_revisions',
            message: `Max replans exceeded (${s.config.max_revisions}) for run ${s.run_id}`,
          };
        }
        emit({
          type: 'RevisionRequested',
          payload: { trigger: input.trigger, reason: input.reason, strategy: 'replan_remaining' },
        });
        return;
      }
      case 'judged': {
        if (!s.judging.includes(input.step_id)) return;
        // ReAct's exit criteria: met ends the loop; not met, the next turn follows as it would.
        const exit = exitVerdict(s, input);
        if (exit) return void emit(exit);
        if (input.ok) {
          emit({
            type: 'ReflectionAdded',
            payload: {
              step_id: input.step_id,
              reflection: `Output of "${input.step_id}" meets its expected_output: ${input.reason}`,
              ...(input.tokens ? { tokens: input.tokens } : {}),
            },
            references: { step_id: input.step_id },
          });
        } else {
          reportUnexpected(s, this.deps.canRevise ?? false, input.step_id, input.reason, emit, input.tokens);
        }
        return;
      }
      case 'await_input': {
        const rt = s.steps.get(input.step_id);
        if (!rt || rt.status !== 'running' || rt.attempt !== input.attempt || s.status !== 'running') return;
        const { step_id, prompt } = input;
        emit({
          type: 'InputRequested',
          payload: { reason: prompt, step_id, prompt },
          references: { step_id },
        });
        return;
      }
      case 'input': {
        if (TERMINAL_RUN_STATUSES.has(s.status)) return notNow(s, 'take input', 'running');
        const waitingOn = s.awaiting?.step_id;
        const asking = waitingOn !== undefined ? s.steps.get(waitingOn) : undefined;
        if (input.step_id !== undefined) {
          const refused = notAwaited(s, input.step_id);
          if (refused) return refused;
        }
        if (waitingOn !== undefined && asking?.status === 'running') {
          // The answer to a step waiting for a person is that step's output.
          emit({
            type: 'InputReceived',
            payload: { input: input.input, step_id: waitingOn },
            references: { step_id: waitingOn },
          });
          emit({
            type: 'ToolReturned',
            payload: returnedPayload(s, waitingOn, asking.attempt, {
              success: true,
              output: input.input ?? null,
              latency_ms: 0,
            }),
            references: { step_id: waitingOn },
          });
          return;
        }
        const aboutFailure = waitingOn !== undefined && s.steps.get(waitingOn)?.status === 'failed';
        // Refused before it is recorded: accepted, a replan nothing can make would end the run failed.
        if (aboutFailure && failureAction(input.input) === 'replan' && !(this.deps.canRevise ?? false))
          return NO_PLANNER_TO_REPLAN;
        emit({ type: 'InputReceived', payload: { input: input.input } });
        if (aboutFailure) {
          answerFailure(s, waitingOn, input.input, emit);
        } else if (
          s.status === 'running' &&
          !s.revising &&
          revisionPossible(s, { canRevise: this.deps.canRevise ?? false })
        ) {
          // New information while running: the rest of the plan is revised in its light — once the
          // plan is whole, when it still streams in.
          emit({
            type: 'RevisionRequested',
            payload: {
              trigger: 'new_information',
              reason: 'new information arrived (POST /input)',
              strategy: s.config.revision_strategy,
              ...(s.streaming ? { deferred: true } : {}),
            },
          });
        }
        return;
      }
      case 'invoked': {
        const rt = s.steps.get(input.step_id);
        if (!rt || rt.status !== 'running' || rt.attempt !== input.attempt || rt.invoked) return;
        const { step_id, attempt, tool, parameters, idempotency_key, deadline_at, limit_ms } = input;
        emit({
          type: 'ToolInvoked',
          payload:
            deadline_at === undefined
              ? { step_id, attempt, tool, parameters, idempotency_key }
              : {
                  step_id,
                  attempt,
                  tool,
                  parameters,
                  idempotency_key,
                  deadline_at,
                  ...(limit_ms !== undefined ? { limit_ms } : {}),
                },
          references: { step_id, tool_version: input.tool_version },
        });
        return;
      }
      case 'result': {
        const rt = s.steps.get(input.step_id);
        // At most one result per attempt: a duplicate, late or stale report changes nothing.
        if (
          !rt ||
          rt.status !== 'running' ||
          rt.attempt !== input.attempt ||
          s.needs_decision.has(input.step_id)
        )
          return;
        const payload = returnedPayload(s, input.step_id, input.attempt, input.outcome);
        // An attempt that outlived its run: recorded (its tool ran), marked, and not reflected on.
        if (TERMINAL_RUN_STATUSES.has(s.status)) {
          emit({
            type: 'ToolReturned',
            payload: { ...payload, after_run_ended: true },
            references: { step_id: input.step_id },
          });
          return;
        }
        emit({ type: 'ToolReturned', payload, references: { step_id: input.step_id } });
        if (payload.success) {
          const opts = { canRevise: this.deps.canRevise ?? false, judge: this.deps.judge ?? false };
          checkExpected(s, opts, input.step_id, payload.output, emit);
        }
        return;
      }
      case 'redispatch': {
        const rt = s.steps.get(input.step_id);
        // Only a queued attempt nobody began, of a run still going: one begun may be running somewhere.
        if (
          !rt ||
          rt.status !== 'running' ||
          rt.attempt !== input.attempt ||
          rt.dispatch !== 'queue' ||
          rt.invoked ||
          s.needs_decision.has(input.step_id) ||
          TERMINAL_RUN_STATUSES.has(s.status)
        )
          return;
        const step = stepDef(s, input.step_id);
        const { action } = actionFor(step, rt.on_fallback);
        const timeout = step.timeout_ms ?? s.config.step_timeout * 1000;
        emit({
          type: 'StepRedispatched',
          payload: {
            step_id: input.step_id,
            attempt: input.attempt,
            action,
            fallback: rt.on_fallback,
            dispatch: 'inline',
            deadline_at: this.deps.clock.now().getTime() + timeout,
            waited_ms: input.waited_ms,
            error: input.error,
          },
          references: { step_id: input.step_id },
        });
        return;
      }
      case 'webhook_attempted': {
        if (s.status !== 'awaiting_approval') return;
        const { type: _type, ...payload } = input;
        emit({ type: 'ApprovalWebhookAttempted', payload });
        return;
      }
      case 'tick':
        return;
      case 'cancel': {
        if (TERMINAL_RUN_STATUSES.has(s.status)) {
          return {
            code: 'run_finished',
            message: `Run ${s.run_id} is already ${s.status}; there is nothing to cancel`,
          };
        }
        emit({
          type: 'RunTerminated',
          payload: { status: 'cancelled', reason: input.reason ?? 'cancelled by request' },
        });
        return;
      }
      case 'resume': {
        const refused = notRetryable(s);
        if (refused) return refused;
        if (!s.plan) {
          // Its planning failed (or it was stopped while planning): a retry plans the goal again.
          if (input.step_id !== undefined)
            return {
              code: 'unknown_step',
              message: `Run ${s.run_id} has no plan, so no step "${input.step_id}"`,
            };
          emit({ type: 'RunResumed', payload: { step_ids: [] } });
          return;
        }
        const ids = resumableSteps(s, input.step_id);
        if (typeof ids === 'object' && 'code' in ids) return ids;
        emit({ type: 'RunResumed', payload: { step_ids: ids } });
        return;
      }
    }
  }

  /** Records a plan, then either asks for approval or starts. */
  #author(plan: Plan, estimates: Estimates | null, emit: (d: EventDraft) => void, tokens?: TokenCount): void {
    emit({ type: 'PlanAuthored', payload: tokens ? { plan, tokens } : { plan } });
    emit({ type: 'PlanValidated', payload: { valid: true, estimates } });
    const { require_plan_approval, approval } = this.state.config;
    if (require_plan_approval) {
      // Never open-ended: without an `approval` block the default deadline (and action, reject) apply.
      const timeout = approval?.timeout_s ?? DEFAULT_APPROVAL_TIMEOUT_S;
      const deadline_at = this.deps.clock.now().getTime() + timeout * 1000;
      emit({ type: 'ApprovalRequested', payload: { deadline_at, plan_version: plan.version } });
    } else {
      emit({ type: 'RunStarted', payload: {} });
    }
  }

  #append(d: EventDraft, out: HandleResult): void {
    const s = this.state;
    const references: EventReferences = {
      plan_id: s.plan?.id ?? null,
      plan_version: s.plan?.version ?? null,
      ...d.references,
    };
    if (d.type === 'PlanAuthored' || d.type === 'PlanUpdated') {
      references.plan_id = d.payload.plan.id;
      references.plan_version = d.payload.plan.version;
    }
    const event = {
      event_id: this.deps.ids.uuid(),
      seq: s.seq + 1,
      event_type: d.type,
      timestamp: this.deps.clock.now().toISOString(),
      actor: `run:${s.run_id}`,
      references,
      payload: d.payload,
    } as RunEvent;
    evolve(s, event, this.deps.results);
    out.events.push(event);
    const command = commandFor(event);
    if (command) out.commands.push(command);
  }
}
