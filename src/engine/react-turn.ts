/**
 * ReAct (seed 002's baseline loop): each turn is one tool call. The planner, shown the plan and every
 * observation so far, answers with the plan plus its next step; this keeps the steps already taken as
 * they were and exactly one new step — the action — whose description is the thought behind it. A
 * turn that adds nothing is the model saying the goal is met. Pure.
 */
import type { Plan, PlanStep } from '../plan/model';
import type { EventDraft, TokenCount } from './events';
import type { RunState } from './state';

/** What one ReAct turn contributes: the plan to run next, the thought, and the action (if any). */
export type ReactTurn = { plan: Plan; thought: string; step: PlanStep | null; dropped: string[] };

/** Turns a ReAct run takes at most when its config sets no `max_turns`. */
export const DEFAULT_MAX_TURNS = 10;

/** The thought behind a step: its description, unless normalisation filled that in with the action. */
function thoughtOf(step: PlanStep): string | null {
  const d = step.description?.trim();
  return d && d !== step.action ? d.replace(/^thought:\s*/i, '') : null;
}

/**
 * The turn a revision amounts to. New steps past the first are dropped (one tool call per turn);
 * changes to the steps already in the plan are ignored (they ran, or are about to).
 * @example reactTurn(current, proposed) // { plan: current + first new step, thought, step, dropped }
 */
export function reactTurn(current: Plan, proposed: Plan): ReactTurn {
  const known = new Set(current.steps.map((s) => s.id));
  const added = proposed.steps.filter((s) => !known.has(s.id));
  const step = added[0] ?? null;
  const said = (proposed.metadata as { thought?: unknown } | undefined)?.thought;
  const thought =
    (step && thoughtOf(step)) ??
    (typeof said === 'string' && said.trim() ? said.trim() : null) ??
    (step ? `Next: ${step.action}` : 'The goal is met: no further action.');
  return {
    plan: { ...proposed, steps: step ? [...current.steps, step] : current.steps },
    thought,
    step,
    dropped: added.slice(1).map((s) => s.id),
  };
}

/** The `ThoughtAdded` event of turn `n` (0: the first plan). */
export function thoughtEvent(n: number, turn: ReactTurn): EventDraft<'ThoughtAdded'> {
  return {
    type: 'ThoughtAdded',
    payload: {
      turn: n,
      thought: turn.thought,
      ...(turn.step ? { step_id: turn.step.id, action: turn.step.action } : {}),
      ...(turn.dropped.length ? { dropped: turn.dropped } : {}),
    },
    ...(turn.step ? { references: { step_id: turn.step.id } } : {}),
  };
}

/**
 * The judge's verdict on a ReAct run's exit criteria after an observation, as the reflection that
 * records it (`exit_criteria_met`), or null when the verdict is an ordinary `expected_output` check.
 */
export function exitVerdict(
  s: RunState,
  v: { step_id: string; ok: boolean; reason: string; tokens?: TokenCount; unanswered?: boolean },
): EventDraft<'ReflectionAdded'> | null {
  if (s.plan?.strategy !== 'react' || s.plan.steps[s.graph!.index.get(v.step_id)!]?.expected_output)
    return null;
  // A judge that could not answer has not found the criteria met: the loop goes on (max_turns bounds it).
  const met = v.ok && v.unanswered !== true;
  const reason = v.unanswered ? v.reason.replace(/; the output stands$/, '') : v.reason;
  return {
    type: 'ReflectionAdded',
    payload: {
      step_id: v.step_id,
      reflection: `Exit criteria ${met ? 'met' : 'not met yet'} after "${v.step_id}": ${reason}`,
      exit_criteria_met: met,
      ...(v.tokens ? { tokens: v.tokens } : {}),
    },
    references: { step_id: v.step_id },
  };
}
