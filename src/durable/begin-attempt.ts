/**
 * Approving an attempt in the run's object (engine/begin-attempt.ts does the work, a step's sub-plan
 * included: it records `agent.dispatch`, which runs it as a child run in its own object).
 */
import { beginAttempt as begin } from '../engine/begin-attempt';
import type { MachineInput, RunMachine } from '../engine/machine';
import type { ResultStore } from '../engine/state';
import type { ToolRegistry } from '../executor/registry';

export type BeginStep =
  | { proceed: false; reason: string }
  | {
      proceed: true;
      action: string;
      parameters: Record<string, unknown>;
      idempotency_key: string;
      timeout_ms: number;
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
  const { action, parameters, idempotency_key, timeout_ms } = r.begun;
  return { proceed: true, action, parameters, idempotency_key, timeout_ms };
}
