/**
 * What follows a step's success: its `expected_output` (or the plan's exit criteria) checked — by the
 * LLM judge when one is configured, else structurally — and a mismatch recorded as a reflection that
 * asks for a revision when one is allowed. It emits the events; it never changes the state itself.
 */
import { revisionPossible } from './decide';
import type { EventDraft, TokenCount } from './events';
import { unexpectedOutput } from './expected-output';
import type { RunState } from './state';

type Emit = (d: EventDraft) => void;

/** How a ReAct run's exit-criteria check is worded to the judge (and recognised in its verdict). */
export const EXIT_CRITERIA = 'the goal’s exit criteria are met by this observation and those before it: ';

/**
 * The `expected_output` check after a success: an LLM judge when one is configured (the owner runs
 * the `judge` command and answers with `judged`), else the structural check. A mismatch is recorded
 * as a reflection and, when revision is allowed, asks for a revision of the rest of the plan.
 */
export function checkExpected(
  s: RunState,
  opts: { canRevise: boolean; judge: boolean },
  stepId: string,
  output: unknown,
  emit: Emit,
): void {
  const step = s.plan?.steps[s.graph!.index.get(stepId)!];
  // ReAct (seed 002): after each observation, the exit criteria are checked by the judge (without
  // one, the model decides at its next turn).
  if (s.plan?.strategy === 'react' && s.plan.success_criteria && step?.expected_output === undefined) {
    if (opts.judge)
      emit({
        type: 'ReflectionRequested',
        payload: { step_id: stepId, expected: `${EXIT_CRITERIA}${s.plan.success_criteria}` },
        references: { step_id: stepId },
      });
    return;
  }
  // Plan → Act → Reflect (seed 002): every step is reflected on against the plan's exit criteria.
  const par = s.plan?.strategy === 'par';
  const criteria = s.plan?.success_criteria ?? `progress toward the goal: ${s.goal}`;
  const expected =
    step?.expected_output ??
    (par ? `a result that keeps the plan on track for its exit criteria: ${criteria}` : undefined);
  if (!expected || !s.config.allow_revision) return;
  if (par && !opts.judge && step?.expected_output === undefined) {
    emit({
      type: 'ReflectionAdded',
      payload: {
        step_id: stepId,
        reflection: `Step "${stepId}" done; exit criteria: ${criteria} (no LLM judge configured to evaluate them)`,
      },
      references: { step_id: stepId },
    });
    return;
  }
  if (opts.judge) {
    emit({
      type: 'ReflectionRequested',
      payload: { step_id: stepId, expected },
      references: { step_id: stepId },
    });
    return;
  }
  const why = unexpectedOutput(expected, output);
  if (why) reportUnexpected(s, opts.canRevise, stepId, why, emit);
}

/** An output that does not meet its `expected_output`: a reflection, then a revision when allowed. */
export function reportUnexpected(
  s: RunState,
  canRevise: boolean,
  stepId: string,
  why: string,
  emit: Emit,
  tokens?: TokenCount,
): void {
  emit({
    type: 'ReflectionAdded',
    payload: {
      step_id: stepId,
      reflection: `Unexpected result from "${stepId}": ${why}`,
      ...(tokens ? { tokens } : {}),
    },
    references: { step_id: stepId },
  });
  // While the plan streams in, the revision is asked for once it is whole.
  if (!s.revising && revisionPossible(s, { canRevise })) {
    emit({
      type: 'RevisionRequested',
      payload: {
        trigger: 'unexpected_result',
        reason: `step "${stepId}": ${why}`,
        step_id: stepId,
        strategy: s.config.revision_strategy,
        ...(s.streaming ? { deferred: true } : {}),
      },
      references: { step_id: stepId },
    });
  }
}
