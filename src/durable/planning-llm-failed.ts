/**
 * `planning_llm_failed`: a run's planning (or revision) failed because no LLM call got an answer — the
 * key refused, a model the endpoint lacks, the provider down, timing out or rate limiting — rather than
 * because a model answered badly. That is the deployment's to fix or wait out, and every goal run
 * meets it, so it is logged for the operator (docs/operating.md), not only told in the run's error.
 */
import type { MachineInput } from '../engine/machine';
import type { TraceEntry } from '../planner/types';
import { log } from '../log';

/** Logs a planning failure whose every LLM attempt was a call that got no answer (one at least). */
export function logPlanningLlmFailed(runId: string, input: MachineInput | null): void {
  if (input?.type !== 'planning_failed' && input?.type !== 'revision_failed') return;
  const details = input.error.details;
  const trace =
    typeof details === 'object' && details !== null && 'planning_trace' in details
      ? details.planning_trace
      : undefined;
  if (!Array.isArray(trace)) return;
  const llm = (trace as TraceEntry[]).filter((t) => t?.planner === 'llm');
  if (llm.length === 0 || !llm.every((t) => t.outcome === 'call_error')) return;
  const what = input.type === 'planning_failed' ? 'planning' : 'revision';
  log('planning_llm_failed', `run ${runId}: ${what}: ${input.error.message}`, {
    run_id: runId,
    code: llm[llm.length - 1]!.error_code,
    count: llm.length,
  });
}
