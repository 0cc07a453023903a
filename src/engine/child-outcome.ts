/**
 * What a step that ran a child run gets, the same in every host: the child's rolled-up result on
 * success, `child_run_failed` otherwise, and the child's tokens counted in the parent's usage.
 */
import type { ErrorInfo } from '../errors';
import type { Finding } from '../plan/findings';
import type { StepOutcome } from './machine-types';
import { teaMetaOf } from '../plan/tea-meta';
import type { RunSnapshot } from './snapshot';
import { contentOf } from './tea-context';

/**
 * The parent step's outcome from its child's final snapshot; `startedAt` is when the child started.
 * @example
 * childOutcome(await child.done(), startedAt).output
 * // { run_id, status, plan, subtask_results, plan_status, replan_count, final_output, token_usage, planning_trace, success }
 */
export function childOutcome(snap: RunSnapshot, startedAt: string | null): StepOutcome {
  const latency_ms =
    startedAt && snap.completed_at ? Math.max(0, Date.parse(snap.completed_at) - Date.parse(startedAt)) : 0;
  const tokens = { prompt: snap.token_usage.prompt_tokens, completion: snap.token_usage.completion_tokens };
  if (snap.status !== 'completed') {
    const why = snap.error?.message ?? snap.status;
    return {
      success: false,
      error: {
        code: 'child_run_failed',
        message: `Child run ${snap.run_id} ended ${snap.status}: ${why}`,
        retryable: false,
      },
      latency_ms,
      tokens,
    };
  }
  if (teaMetaOf(snap.plan)?.subtasks) {
    // TEA's plan.execute returns exactly these keys (they merge into the workflow's state).
    const { plan, subtask_results } = teaResults(snap);
    return {
      success: true,
      output: {
        plan,
        subtask_results,
        plan_status: snap.counts,
        replan_count: snap.revision_count,
        planning_trace: [],
        success: true,
      },
      latency_ms,
      tokens,
    };
  }
  return {
    success: true,
    output: {
      run_id: snap.run_id,
      status: snap.status,
      plan: snap.plan,
      subtask_results: snap.step_results,
      plan_status: snap.counts,
      replan_count: snap.revision_count,
      final_output: snap.final_output,
      token_usage: snap.token_usage,
      planning_trace: [],
      success: true,
    },
    latency_ms,
    tokens,
  };
}

/**
 * A TEA workflow's plan.execute result (planning_actions.py): each subtask's result is its `content`
 * when it has one, the plan lists every subtask — the ones completed before, then these — with its
 * status and result, and `subtask_results` holds them all.
 */
function teaResults(snap: RunSnapshot): { plan: unknown; subtask_results: Record<string, unknown> } {
  const preserved = teaMetaOf(snap.plan)?.preserved ?? [];
  const results: Record<string, unknown> = {};
  for (const p of preserved) if (typeof p.id === 'string') results[p.id] = p.result ?? null;
  const ran = (snap.plan?.steps ?? []).map((s) => {
    const status = snap.step_statuses[s.id] ?? 'pending';
    const result = s.id in snap.step_results ? contentOf(snap.step_results[s.id]) : null;
    if (status === 'completed') results[s.id] = result;
    // As TEA's Subtask.to_dict: no action or parameters (the executor ran it).
    const { action: _action, parameters: _parameters, ...subtask } = s;
    return { ...subtask, status, result };
  });
  const { metadata, ...plan } = snap.plan ?? { metadata: undefined };
  const { tea: _tea, ...rest } = metadata ?? {};
  const subtasks = [...preserved, ...ran];
  return { plan: { ...plan, metadata: rest, steps: subtasks, subtasks }, subtask_results: results };
}

/**
 * The failure of a step whose child plan has findings: not retryable, the first finding named.
 * @example invalidChildPlan([{ code: 'unknown_tool', message: 'Step "a": unknown tool "x"' }]).code // 'invalid_plan'
 */
export function invalidChildPlan(findings: readonly Finding[]): ErrorInfo {
  const first = findings[0];
  return {
    code: 'invalid_plan',
    message: `The child plan has ${findings.length} finding(s)${first ? `: ${first.code}: ${first.message}` : ''}`,
    retryable: false,
  };
}
