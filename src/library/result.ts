/**
 * Seed 000's `PlanExecutionResult` (§3.2), built from a settled run's snapshot and events.
 */
import type { ErrorInfo } from '../errors';
import type { RunEvent } from '../engine/events';
import type { RunSnapshot } from '../engine/snapshot';
import type { Plan, RunStatus } from '../plan/model';
import { executionStateOf, stepResultsOf, type PlanExecutionState, type StepResult } from './execution-state';

/** Planning and `llm.call` tokens the run spent. */
export type TokenUsage = { promptTokens: number; completionTokens: number; totalTokens: number };

export type PlanExecutionResult = {
  /** The run completed: every step completed or was skipped without a failure. */
  success: boolean;
  status: RunStatus;
  /** The plan as first executed. */
  plan: Plan;
  /** The plan at the end; differs from `plan` after a revision. */
  finalPlan: Plan;
  stepResults: Record<string, StepResult>;
  /** The final output as text (JSON for anything but a string), or null. */
  finalOutput: string | null;
  /** The final output as the engine gives it: the last step's output, or every sink step's by id. */
  output: unknown;
  revisionCount: number;
  executionState: PlanExecutionState;
  tokenUsage: TokenUsage;
  /** Seconds, from the call to its result (approval included). */
  executionTime: number;
  runId: string;
  /** Why the run did not succeed, or null. */
  error: ErrorInfo | null;
  /** The run's whole event log (seed-002 envelopes); fold it with `replay` to rebuild the state. */
  events: readonly RunEvent[];
};

/**
 * @example const result = buildResult({ plan, snapshot: runner.snapshot(), events: runner.events, executionTime: 1.2 });
 */
export function buildResult(args: {
  plan: Plan;
  snapshot: RunSnapshot;
  events: readonly RunEvent[];
  executionTime: number;
}): PlanExecutionResult {
  const { snapshot, events } = args;
  const output = snapshot.final_output ?? null;
  return {
    success: snapshot.status === 'completed',
    status: snapshot.status,
    plan: args.plan,
    finalPlan: snapshot.plan ?? args.plan,
    stepResults: stepResultsOf(snapshot),
    finalOutput: output === null ? null : typeof output === 'string' ? output : JSON.stringify(output),
    output,
    revisionCount: snapshot.revision_count,
    executionState: executionStateOf(snapshot, events),
    tokenUsage: {
      promptTokens: snapshot.token_usage.prompt_tokens,
      completionTokens: snapshot.token_usage.completion_tokens,
      totalTokens: snapshot.token_usage.total_tokens,
    },
    executionTime: args.executionTime,
    runId: snapshot.run_id,
    error: snapshot.error ?? terminationError(snapshot, events),
    events,
  };
}

/** Runs that end without an error of their own (a rejected plan, a cancel) still say why. */
function terminationError(snapshot: RunSnapshot, events: readonly RunEvent[]): ErrorInfo | null {
  if (snapshot.status === 'completed') return null;
  const end = events.findLast((e) => e.event_type === 'RunTerminated');
  if (end?.event_type !== 'RunTerminated') return null;
  const reason = end.payload.reason;
  const message =
    reason === 'plan_rejected'
      ? `The plan was not approved (run ${snapshot.run_id})`
      : `Run ${snapshot.run_id} ${snapshot.status}: ${reason}`;
  return { code: reason, message, retryable: false };
}
