/**
 * How an answer to `ask_user` about a failed step continues the run: skip it, abort the run, replan,
 * or retry (the default). It emits the events; it never changes the state itself.
 */
import { isRecord } from '../plan/model';
import type { EventDraft } from './events';
import type { Refusal } from './machine-types';
import { resumableSteps } from './retry-scope';
import type { RunState } from './state';

type Emit = (d: EventDraft) => void;

/** What an answer about a failed step asks for: its `action`, `retry` when it names none. */
export function failureAction(answer: unknown): string {
  return isRecord(answer) && typeof answer.action === 'string' ? answer.action : 'retry';
}

/** The refusal of an answer `{"action": "replan"}` where no planner could make the new version. */
export const NO_PLANNER_TO_REPLAN: Refusal = {
  code: 'planning_unavailable',
  message:
    'Answering {"action": "replan"} needs an LLM planner, and none is configured: answer ' +
    '{"action": "retry"}, {"action": "skip"} or {"action": "abort"}',
  details: { reason: 'no_planner' },
};

/**
 * The answer to `ask_user` about a failed step: `{"action": "skip" | "abort" | "replan" | "retry"}`
 * (retry when absent) — the rest of the answer is new information in the run state.
 */
export function answerFailure(s: RunState, stepId: string, answer: unknown, emit: Emit): void {
  const action = failureAction(answer);
  if (action === 'skip') {
    emit({
      type: 'StepSkipped',
      payload: { step_id: stepId, reason: 'failure_strategy', detail: 'skipped at the user’s request' },
      references: { step_id: stepId },
    });
  } else if (action === 'abort') {
    emit({
      type: 'RunTerminated',
      payload: {
        status: 'aborted',
        reason: 'user_abort',
        error: {
          code: 'aborted',
          message: `Stopped at the user’s request after step "${stepId}" failed`,
          retryable: false,
        },
      },
    });
  } else if (action === 'replan') {
    emit({
      type: 'RevisionRequested',
      payload: {
        trigger: 'new_information',
        reason: `user asked to replan after step "${stepId}" failed`,
        step_id: stepId,
        strategy: 'replan_remaining',
      },
      references: { step_id: stepId },
    });
  } else {
    const ids = resumableSteps(s, stepId);
    if (Array.isArray(ids)) emit({ type: 'RunResumed', payload: { step_ids: ids } });
  }
}
