/**
 * Approving an attempt before it runs, synchronously against the live state: is it still current,
 * what are its concrete parameters, which time limit applies. Queues the `invoked` input (or, when a
 * referenced value was never written, the failure) for the caller to apply in the same transaction.
 */
import { actionFor, scopeFor, stepDef } from '../engine/decide';
import type { MachineInput, RunMachine } from '../engine/machine';
import type { ResultStore } from '../engine/state';
import type { ToolRegistry } from '../executor/registry';
import type { RunConfig } from '../plan/config';
import { collectReferences, resolveValue } from '../plan/references';
import { idempotencyKey } from './persist';

export type BeginStep =
  | { proceed: false; reason: string }
  | {
      proceed: true;
      action: string;
      parameters: Record<string, unknown>;
      idempotency_key: string;
      timeout_ms: number;
    };

export function beginAttempt(
  m: RunMachine,
  results: ResultStore,
  tools: ToolRegistry,
  stepId: string,
  attempt: number,
  pending: MachineInput[],
): BeginStep {
  const rt = m.state.steps.get(stepId);
  if (!rt || rt.status !== 'running' || rt.attempt !== attempt || m.state.needs_decision.has(stepId)) {
    return { proceed: false, reason: 'attempt is no longer current' };
  }
  const step = stepDef(m.state, stepId);
  // Hierarchical plans: a step with a sub-plan is done when the sub-plan, run as a child run, is.
  const { action, parameters } =
    step.subplan && !rt.on_fallback
      ? { action: 'agent.dispatch', parameters: { plan: step.subplan, config: childConfig(m.state.config) } }
      : actionFor(step, rt.on_fallback);
  const resolved = resolveValue(parameters, scopeFor(m.state, results, collectReferences(parameters).refs));
  if (!resolved.ok) {
    const error = {
      code: 'missing_input',
      message: `${resolved.missing.text} was never written`,
      retryable: false,
    };
    pending.push({
      type: 'result',
      step_id: stepId,
      attempt,
      outcome: { success: false, error, latency_ms: 0 },
    });
    return { proceed: false, reason: error.message };
  }
  const idempotency_key = idempotencyKey(m.state.run_id, stepId, attempt);
  const params = resolved.value as Record<string, unknown>;
  const tool = tools.get(action);
  // A tool with its own time limit (a child run, a person) gets it unless the step sets one.
  const deadline_at =
    tool?.timeout_ms !== undefined && step.timeout_ms === undefined
      ? Date.now() + tool.timeout_ms
      : undefined;
  pending.push({
    type: 'invoked',
    step_id: stepId,
    attempt,
    tool: action,
    parameters: params,
    idempotency_key,
    tool_version: tool?.version,
    ...(deadline_at !== undefined ? { deadline_at } : {}),
  });
  const timeout_ms = Math.max(1, (deadline_at ?? rt.deadline_at ?? Date.now()) - Date.now());
  return { proceed: true, action, parameters: params, idempotency_key, timeout_ms };
}

/** A sub-plan runs the way its parent does, without asking for approval again. */
function childConfig(c: RunConfig): Record<string, unknown> {
  const { require_plan_approval: _approval, approval: _a, mode: _mode, ...rest } = c;
  return rest;
}
