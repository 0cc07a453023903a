/**
 * Approving an attempt in the run's object (engine/begin-attempt.ts does the work, a step's sub-plan
 * included: it records `agent.dispatch`, which runs it as a child run in its own object).
 */
import { beginAttempt as begin } from '../engine/begin-attempt';
import type { MachineInput, RunMachine } from '../engine/machine';
import type { ResultStore } from '../engine/state';
import type { ToolRegistry } from '../executor/registry';

export type BeginStep =
  /** `retry`: the attempt is begun but did not fit in this reply; its message should come back. */
  | { proceed: false; reason: string; retry?: boolean }
  | {
      proceed: true;
      action: string;
      parameters: Record<string, unknown>;
      idempotency_key: string;
      timeout_ms: number;
      /** The step's configured time limit, which a timeout's message names. */
      limit_ms: number;
      /** Length of the parameters' JSON text (call-limits.ts budgets replies by it). */
      parameters_length: number;
      /** The run's `max_output_bytes`: a larger output is reported as `output_too_large`. */
      max_output_bytes: number;
    };

/**
 * Begins a dispatched attempt now; the inputs it leads to are pushed onto `pending`.
 * @example const b = beginAttempt(m, store, registry, 'fetch', 1, pending); if (b.proceed) run(b.action, b.parameters);
 */
export function beginAttempt(
  m: RunMachine,
  results: ResultStore,
  tools: ToolRegistry,
  stepId: string,
  attempt: number,
  pending: MachineInput[],
): BeginStep {
  const r = begin(m.state, results, tools, stepId, attempt, Date.now());
  pending.push(...r.inputs);
  if (!r.begun) return { proceed: false, reason: r.reason ?? 'not begun' };
  const { action, parameters, idempotency_key, timeout_ms, limit_ms, parameters_length } = r.begun;
  const max_output_bytes = m.state.config.max_output_bytes;
  return {
    proceed: true,
    action,
    parameters,
    idempotency_key,
    timeout_ms,
    limit_ms,
    parameters_length,
    max_output_bytes,
  };
}
