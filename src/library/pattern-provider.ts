/**
 * A pattern's rules on top of an agent's plan source: the planning strategy (`hierarchical`),
 * `onPlanGenerated` on every first plan (its answer validated again), and `onRevisionNeeded` before
 * every revision a run asks for — replan with the planner, or retry, skip or abort without it.
 */
import type { PlanningCallbacks } from './callbacks';
import { RevisionDecision } from './callbacks';
import type { PlanExecutionState } from './execution-state';
import type { PlanAttempt, PlanProvider } from '../engine/plan-provider';
import { checkReturnedPlan, retryVersion, skipVersion, type CheckContext } from './plan-versions';
import type { Strategy } from '../plan/model';
import { REVISION_DECLINED } from '../engine/machine-types';

export type PatternRules = {
  check: CheckContext;
  strategy: Strategy;
  onPlanGenerated: PlanningCallbacks['onPlanGenerated'];
  onRevisionNeeded: PlanningCallbacks['onRevisionNeeded'];
  /** The execution state `onRevisionNeeded` is shown; null outside a run (then: replan). */
  live: () => PlanExecutionState | null;
};

/**
 * @example const provider = withPatternRules(pipelineProvider(opts), { check, strategy: 'flat', onPlanGenerated, onRevisionNeeded, live });
 */
export function withPatternRules(base: PlanProvider, rules: PatternRules): PlanProvider {
  const { check, strategy, onPlanGenerated, onRevisionNeeded } = rules;
  return {
    ...(base.canRevise === false ? { canRevise: false } : {}),
    draft: async (request) => {
      const out = await base.draft({ ...request, strategy });
      if (!out.ok) return out;
      let returned: unknown;
      try {
        returned = await onPlanGenerated(structuredClone(out.plan));
      } catch (err) {
        return callbackFailure('onPlanGenerated', err);
      }
      const input = request.input === undefined ? undefined : { value: request.input };
      const checked = checkReturnedPlan(returned, out.plan, check, 'onPlanGenerated', input);
      return checked.ok && out.tokens ? { ...checked, tokens: out.tokens } : checked;
    },
    revise: async (request): Promise<PlanAttempt> => {
      const state = rules.live();
      let decision: RevisionDecision = RevisionDecision.replan;
      try {
        if (state) decision = await onRevisionNeeded(state, request.reason);
      } catch (err) {
        return callbackFailure('onRevisionNeeded', err);
      }
      const failed = request.failure?.step_id;
      switch (decision) {
        case RevisionDecision.replan:
          return base.revise(request);
        case RevisionDecision.retry:
          return { ok: true, plan: retryVersion(request.plan), estimates: null };
        case RevisionDecision.skip:
          return failed === undefined
            ? base.revise(request)
            : { ok: true, plan: skipVersion(request.plan, failed), estimates: null };
        case RevisionDecision.abort:
          return {
            ok: false,
            error: {
              code: REVISION_DECLINED,
              message: `onRevisionNeeded chose abort (${request.reason})`,
              retryable: false,
            },
          };
        default:
          return {
            ok: false,
            error: {
              code: 'invalid_decision',
              message: `onRevisionNeeded returned ${JSON.stringify(decision)}; expected one of ${Object.values(RevisionDecision).join(', ')}`,
              retryable: false,
            },
          };
      }
    },
  };
}

/** A callback that throws ends planning or the revision with its message. */
function callbackFailure(name: string, err: unknown): PlanAttempt {
  const why = err instanceof Error ? err.message : String(err);
  return { ok: false, error: { code: 'callback_error', message: `${name} threw: ${why}`, retryable: false } };
}
