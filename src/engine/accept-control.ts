/**
 * The run machine's control inputs from its callers: new information or the answer the run waits
 * for, a cancel, a retry, and the fault of a decision that threw (the run fails). Each becomes its events, or the refusal that says why it does not apply.
 */
import { TERMINAL_RUN_STATUSES } from '../plan/model';
import { revisionPossible } from './decide';
import type { EventDraft } from './events';
import { answerFailure, failureAction, NO_PLANNER_TO_REPLAN } from './failure-answer';
import type { MachineDeps, MachineInput, Refusal } from './machine-types';
import { returnedPayload, returnedReferences } from './returned-payload';
import { notRetryable, resumableSteps } from './retry-scope';
import type { RunState } from './state';
import { answeredBeforeEnd, answerUnfit, notAwaited, notNow, questionClosed } from './status-refusals';

type Emit = (d: EventDraft) => void;

type ControlInput = Extract<MachineInput, { type: 'input' | 'cancel' | 'fault' | 'resume' }>;

/**
 * Turns a caller's input into its events, or says why it does not apply.
 */
export function acceptControlInput(
  s: RunState,
  input: ControlInput,
  emit: Emit,
  deps: MachineDeps,
): Refusal | undefined {
  switch (input.type) {
    case 'input': {
      // An answer that names its question answers that one or none: before any other check.
      if (input.question_seq !== undefined) {
        const closed = questionClosed(s, input.question_seq, input.step_id);
        if (closed) return closed;
      }
      if (TERMINAL_RUN_STATUSES.has(s.status))
        return input.step_id === undefined
          ? notNow(s, 'take input', 'running')
          : answeredBeforeEnd(s, input.step_id);
      const waitingOn = s.awaiting?.step_id;
      const asking = waitingOn !== undefined ? s.steps.get(waitingOn) : undefined;
      if (input.step_id !== undefined) {
        const refused = notAwaited(s, input.step_id);
        if (refused) return refused;
      }
      const by =
        input.answered_by === undefined
          ? {}
          : {
              answered_by: input.answered_by,
              ...(input.answered_by_via === undefined ? {} : { answered_by_via: input.answered_by_via }),
            };
      if (waitingOn !== undefined && asking?.status === 'running') {
        const unfit = answerUnfit(s, waitingOn, input.input);
        if (unfit) return unfit;
        // The answer to a step waiting for a person is that step's output.
        emit({
          type: 'InputReceived',
          payload: { input: input.input, step_id: waitingOn, ...by },
          references: { step_id: waitingOn },
        });
        emit({
          type: 'ToolReturned',
          payload: returnedPayload(s, waitingOn, asking.attempt, {
            success: true,
            output: input.input ?? null,
            latency_ms: 0,
          }),
          references: returnedReferences(s, waitingOn),
        });
        return;
      }
      const aboutFailure = waitingOn !== undefined && s.steps.get(waitingOn)?.status === 'failed';
      // Refused before it is recorded: accepted, a replan nothing can make would end the run failed.
      if (aboutFailure && failureAction(input.input) === 'replan' && !(deps.canRevise ?? false))
        return NO_PLANNER_TO_REPLAN;
      emit({ type: 'InputReceived', payload: { input: input.input, ...by } });
      if (aboutFailure) {
        answerFailure(s, waitingOn, input.input, emit);
      } else if (
        s.status === 'running' &&
        !s.revising &&
        revisionPossible(s, { canRevise: deps.canRevise ?? false })
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
    case 'cancel': {
      if (TERMINAL_RUN_STATUSES.has(s.status)) {
        return {
          code: 'run_finished',
          message: `Run ${s.run_id} is already ${s.status}; there is nothing to cancel`,
          // A cancel sent again after its answer was lost reads here that the run is cancelled.
          details: { status: s.status },
        };
      }
      emit({
        type: 'RunTerminated',
        payload: { status: 'cancelled', reason: input.reason ?? 'cancelled by request' },
      });
      return;
    }
    case 'fault': {
      // An ended run has nothing left to decide, so nothing to throw on again.
      if (TERMINAL_RUN_STATUSES.has(s.status)) return;
      emit({
        type: 'RunTerminated',
        payload: { status: 'failed', reason: 'decision_failed', error: input.error },
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
