/**
 * The command each recorded event implies for the run's owner: dispatch an attempt, abort, revise,
 * judge, or wait for an approval or an answer. One event, at most one command.
 */
import type { RunEvent } from './events';
import type { Command } from './machine-types';

export function commandFor(event: RunEvent): Command | null {
  if (event.event_type === 'StepScheduled') {
    const p = event.payload;
    return {
      type: 'dispatch',
      step_id: p.step_id,
      attempt: p.attempt,
      action: p.action,
      fallback: p.fallback,
      mode: p.dispatch,
    };
  }
  if (event.event_type === 'StepRedispatched') {
    const { step_id, attempt, action, fallback, dispatch } = event.payload;
    return { type: 'dispatch', step_id, attempt, action, fallback, mode: dispatch };
  }
  if (event.event_type === 'RunTerminated' && event.payload.status === 'cancelled') {
    return { type: 'abort', step_ids: [], reason: event.payload.reason };
  }
  // A deferred request is only noted: it is asked again, and carried out, once the plan is whole.
  if (event.event_type === 'RevisionRequested' && !event.payload.deferred) {
    const { trigger, reason, step_id, strategy } = event.payload;
    return step_id === undefined
      ? { type: 'revise', trigger, reason, strategy }
      : { type: 'revise', trigger, reason, step_id, strategy };
  }
  if (event.event_type === 'ReflectionRequested') {
    return { type: 'judge', step_id: event.payload.step_id, expected: event.payload.expected };
  }
  if (event.event_type === 'ApprovalRequested')
    return { type: 'approval_requested', deadline_at: event.payload.deadline_at };
  if (event.event_type === 'InputRequested') {
    const { reason, step_id } = event.payload;
    return step_id === undefined
      ? { type: 'input_requested', reason }
      : { type: 'input_requested', reason, step_id };
  }
  return null;
}
