/**
 * The run machine's plan inputs: a run created, its plan streamed in, authored or failed, an
 * approver's decision (and the approval webhook's attempts), and new plan versions — a revision, a
 * rollback, a ReAct turn — or a request for one. Each becomes its events, or the refusal that says
 * why it does not apply now.
 */
import type { Estimates } from '../plan/estimates';
import { DEFAULT_APPROVAL_TIMEOUT_S } from '../plan/config';
import { TERMINAL_RUN_STATUSES, type Plan } from '../plan/model';
import { pinEnvNames } from '../plan/tea-meta';
import type { EventDraft, TokenCount } from './events';
import { REVISION_DECLINED, type MachineDeps, type MachineInput, type Refusal } from './machine-types';
import { changedSteps, samePlanContent } from './plan-changes';
import { reactTurn, thoughtEvent } from './react-turn';
import type { RunState } from './state';
import { notAwaitingDecision, notNow, notRevisable, otherVersionAwaited } from './status-refusals';

type Emit = (d: EventDraft) => void;

type PlanInput = Extract<
  MachineInput,
  {
    type:
      | 'create'
      | 'streamed_step'
      | 'planned'
      | 'planning_failed'
      | 'approval'
      | 'revise'
      | 'revision_failed'
      | 'request_revision'
      | 'webhook_attempted';
  }
>;

/**
 * Turns a plan input into its events, or says why it does not apply.
 */
export function acceptPlanInput(
  s: RunState,
  input: PlanInput,
  emit: Emit,
  deps: MachineDeps,
): Refusal | undefined {
  switch (input.type) {
    case 'create': {
      if (s.seq > 0) return { code: 'run_exists', message: `Run ${s.run_id} already exists` };
      const { run_id, goal, config, plan, estimates } = input;
      emit({
        type: 'RunCreated',
        payload: { run_id, goal, config, input: input.input, state: input.state },
      });
      if (plan) author(s, deps, plan, estimates, emit);
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
        author(s, deps, turn.plan, input.estimates, emit, input.tokens);
        return;
      }
      author(s, deps, planned, input.estimates, emit, input.tokens);
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
      if (s.status !== 'awaiting_approval' || s.approval?.decision !== 'pending')
        return notAwaitingDecision(s);
      const stale = otherVersionAwaited(s, input.plan_version);
      if (stale) return stale;
      const by = 'approver';
      const comment = input.comment;
      // The name the decider gave, kept as a label beside `by` (who decided: a person, not the deadline),
      // and how it was established — or, with no name, how the decision came (the approval link, an
      // API token), so a reader is told something true instead of "the approver".
      const named = {
        ...(input.approver === undefined ? {} : { approver: input.approver }),
        ...(input.approver_via === undefined ? {} : { approver_via: input.approver_via }),
      };
      if (input.decision === 'reject') {
        emit({ type: 'ApprovalRejected', payload: { comment, by, ...named } });
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
            // Who edited, with the version: the run's last decision may later be another's.
            ...named,
          },
        });
      }
      emit({ type: 'ApprovalGranted', payload: { comment, by, ...named } });
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
      // A version the planner wrote that adds or changes a step waits for the approver when the run
      // asks for that: the steps already running finish, nothing new starts until the decision.
      const { require_plan_approval, approval } = s.config;
      if (
        kind !== 'rollback' &&
        changed_steps.length > 0 &&
        require_plan_approval &&
        approval?.revisions === 'ask'
      ) {
        requestApproval(s, deps, plan, emit);
      } else if (kind === 'rollback' && s.status === 'awaiting_approval') {
        // The version that awaited the approver is gone: they are asked about the one in its place
        // (a webhook, a link, a deadline of its own), not left deciding a plan nobody is shown.
        requestApproval(s, deps, plan, emit);
      }
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
      if (s.status !== 'running' && s.status !== 'awaiting_input') return notRevisable(s);
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
    case 'webhook_attempted': {
      if (s.status !== 'awaiting_approval') return;
      const { type: _type, ...payload } = input;
      emit({ type: 'ApprovalWebhookAttempted', payload });
      return;
    }
  }
}

/** Records a plan, then either asks for approval or starts. */
function author(
  s: RunState,
  deps: MachineDeps,
  plan: Plan,
  estimates: Estimates | null,
  emit: Emit,
  tokens?: TokenCount,
): void {
  emit({ type: 'PlanAuthored', payload: tokens ? { plan, tokens } : { plan } });
  emit({ type: 'PlanValidated', payload: { valid: true, estimates } });
  if (s.config.require_plan_approval) requestApproval(s, deps, plan, emit);
  else emit({ type: 'RunStarted', payload: {} });
}

/** Holds the run for the approver's decision on `plan`, until the deadline. */
function requestApproval(s: RunState, deps: MachineDeps, plan: Plan, emit: Emit): void {
  // Never open-ended: without an `approval` block the default deadline (and action, reject) apply.
  const timeout = s.config.approval?.timeout_s ?? DEFAULT_APPROVAL_TIMEOUT_S;
  const deadline_at = deps.clock.now().getTime() + timeout * 1000;
  emit({ type: 'ApprovalRequested', payload: { deadline_at, plan_version: plan.version } });
}
