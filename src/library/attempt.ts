/**
 * One attempt of one step in process: begun synchronously with the decision that scheduled it (its
 * parameters resolved against the state as it is then, `ToolInvoked` queued), then run with
 * `executeTool` — the same runner the queue consumer uses.
 */
import { actionFor, scopeFor, stepDef } from '../engine/decide';
import type { Command, MachineInput, StepOutcome } from '../engine/machine';
import type { ResultStore, RunState } from '../engine/state';
import type { ToolRegistry } from '../executor/registry';
import { deferredOf } from '../executor/deferred';
import { executeTool } from '../executor/run-step';
import type { PlanStep } from '../plan/model';
import { collectReferences, resolveValue } from '../plan/references';

/** An attempt the run has recorded as invoked, ready to run. */
export type BegunAttempt = {
  runId: string;
  step: PlanStep;
  attempt: number;
  fallback: boolean;
  /** The first attempt of this step since it last became ready (not a retry, not the fallback). */
  first: boolean;
  /** The tool to run, or `subplan` for a step whose sub-plan runs instead (hierarchical plans). */
  action: string;
  parameters: Record<string, unknown>;
  idempotencyKey: string;
  timeoutMs: number;
};

/** What a sub-plan step records as its tool; the sub-plan runs as a run of its own. */
export const SUBPLAN_ACTION = 'subplan';

/** A sub-plan's time limit when its step sets none — as long as the object gives a child run. */
const SUBPLAN_TIMEOUT_MS = 3_600_000;

/**
 * Begins a dispatched attempt: the inputs to feed the machine next (`invoked`, or a `missing_input`
 * failure when a reference was never written), and the attempt to run when there is one.
 */
export function beginAttempt(
  state: RunState,
  results: ResultStore,
  tools: ToolRegistry,
  command: Extract<Command, { type: 'dispatch' }>,
  now: number,
): { inputs: MachineInput[]; attempt: BegunAttempt | null } {
  const { step_id, attempt } = command;
  const rt = state.steps.get(step_id);
  if (!rt || rt.status !== 'running' || rt.attempt !== attempt || state.needs_decision.has(step_id)) {
    return { inputs: [], attempt: null };
  }
  const step = stepDef(state, step_id);
  // Hierarchical plans: a step with a sub-plan is done when the sub-plan is (the object runs it as
  // a child run through agent.dispatch; here it is a run of its own in process).
  const { action, parameters } =
    step.subplan && !rt.on_fallback
      ? { action: SUBPLAN_ACTION, parameters: { plan_id: step.subplan.id, steps: step.subplan.steps.length } }
      : actionFor(step, rt.on_fallback);
  const resolved = resolveValue(parameters, scopeFor(state, results, collectReferences(parameters).refs));
  if (!resolved.ok) {
    const error = {
      code: 'missing_input',
      message: `${resolved.missing.text} was never written`,
      retryable: false,
    };
    const outcome: StepOutcome = { success: false, error, latency_ms: 0 };
    return { inputs: [{ type: 'result', step_id, attempt, outcome }], attempt: null };
  }
  const params = resolved.value as Record<string, unknown>;
  const idempotencyKey = `${state.run_id}:${step_id}:${attempt}`;
  const tool = tools.get(action);
  // A tool with its own time limit (a person's answer, a sub-plan) gets it unless the step sets one.
  const ownTimeout = action === SUBPLAN_ACTION ? SUBPLAN_TIMEOUT_MS : tool?.timeout_ms;
  const deadline_at =
    ownTimeout !== undefined && step.timeout_ms === undefined ? now + ownTimeout : undefined;
  const invoked: MachineInput = {
    type: 'invoked',
    step_id,
    attempt,
    tool: action,
    parameters: params,
    idempotency_key: idempotencyKey,
    ...(tool ? { tool_version: tool.version } : {}),
    ...(deadline_at !== undefined ? { deadline_at } : {}),
  };
  return {
    inputs: [invoked],
    attempt: {
      runId: state.run_id,
      step,
      attempt,
      fallback: rt.on_fallback,
      first: !rt.on_fallback && rt.retries_used === 0,
      action,
      parameters: params,
      idempotencyKey,
      timeoutMs: Math.max(1, (deadline_at ?? rt.deadline_at ?? now) - now),
    },
  };
}

export type AttemptContext = {
  tools: ToolRegistry;
  env: Record<string, unknown>;
  fetch?: typeof fetch | undefined;
  signal: AbortSignal;
};

/** Runs a begun attempt; never throws. */
export async function performAttempt(a: BegunAttempt, ctx: AttemptContext): Promise<StepOutcome> {
  const tool = ctx.tools.get(a.action);
  if (!tool) {
    const message = `No tool named "${a.action}" is registered (known: ${ctx.tools.names().join(', ')})`;
    return { success: false, error: { code: 'unknown_tool', message, retryable: false }, latency_ms: 0 };
  }
  return executeTool(tool, a.parameters, {
    runId: a.runId,
    stepId: a.step.id,
    attempt: a.attempt,
    idempotencyKey: a.idempotencyKey,
    env: ctx.env,
    ...(ctx.fetch ? { fetch: ctx.fetch } : {}),
    timeoutMs: a.timeoutMs,
    signal: ctx.signal,
  });
}

/**
 * What an attempt's outcome tells the machine. A tool that defers to a person (`human.input`) leaves
 * the step running until `provideInput` answers; one that defers to a child run needs the Durable
 * Object's bindings, which an in-process run does not have.
 */
export function resultInput(a: BegunAttempt, outcome: StepOutcome): MachineInput {
  const deferred = deferredOf(outcome);
  const step_id = a.step.id;
  if (deferred?.$deferred === 'input')
    return { type: 'await_input', step_id, attempt: a.attempt, prompt: deferred.prompt };
  if (deferred) {
    const message = `${a.action} starts a child run, which needs the Worker's Durable Objects; it cannot run in process`;
    return {
      type: 'result',
      step_id,
      attempt: a.attempt,
      outcome: {
        success: false,
        error: { code: 'unsupported_in_process', message, retryable: false },
        latency_ms: outcome.latency_ms,
      },
    };
  }
  return { type: 'result', step_id, attempt: a.attempt, outcome };
}
