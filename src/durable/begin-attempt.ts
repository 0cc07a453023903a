/**
 * Approving an attempt in the run's object (engine/begin-attempt.ts does the work): a step's
 * sub-plan runs as a child run through `agent.dispatch`, with the parent's config and no second
 * approval.
 */
import { beginAttempt as begin, type SubplanAction } from '../engine/begin-attempt';
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

const asChildRun: SubplanAction = (step, state) => {
  const { require_plan_approval: _approval, approval: _a, mode: _mode, ...config } = state.config;
  return { action: 'agent.dispatch', parameters: { plan: step.subplan, config } };
};

export function beginAttempt(
  m: RunMachine,
  results: ResultStore,
  tools: ToolRegistry,
  stepId: string,
  attempt: number,
  pending: MachineInput[],
): BeginStep {
  const r = begin(m.state, results, tools, stepId, attempt, Date.now(), asChildRun);
  pending.push(...r.inputs);
  if (!r.begun) return { proceed: false, reason: r.reason ?? 'not begun' };
  const { action, parameters, idempotency_key, timeout_ms } = r.begun;
  return { proceed: true, action, parameters, idempotency_key, timeout_ms };
}
