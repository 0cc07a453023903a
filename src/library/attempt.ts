/**
 * One attempt of one step in process: begun synchronously with the decision that scheduled it (its
 * parameters resolved against the state as it is then, `ToolInvoked` queued), then run with
 * `executeTool` — the same runner the queue consumer uses.
 */
import { beginAttempt as begin } from '../engine/begin-attempt';
import { CHILD_RUN_ACTION } from '../engine/child-run';
import type { Command, MachineInput, StepOutcome } from '../engine/machine';
import type { ResultStore, RunState } from '../engine/state';
import type { ToolRegistry } from '../executor/registry';
import { deferredOf } from '../executor/deferred';
import { executeTool } from '../executor/run-step';
import type { PlanStep } from '../plan/model';

/** An attempt the run has recorded as invoked, ready to run. */
export type BegunAttempt = {
  runId: string;
  step: PlanStep;
  attempt: number;
  fallback: boolean;
  /** The first attempt of this step since it last became ready (not a retry, not the fallback). */
  first: boolean;
  /** The tool to run; `agent.dispatch` (a sub-plan step's too) runs as a nested run instead. */
  action: string;
  parameters: Record<string, unknown>;
  idempotencyKey: string;
  /** What is left of the attempt's time. */
  timeoutMs: number;
  /** The step's configured time limit, which a timeout's message names. */
  limitMs: number;
};

/**
 * The action the runner runs as a nested run (library/subplan.ts) rather than a tool: what a sub-plan
 * step records, and `agent.dispatch` named as a step's tool — the same call the Worker runs as a child
 * object.
 */
export const SUBPLAN_ACTION = CHILD_RUN_ACTION;

/**
 * Begins a dispatched attempt (engine/begin-attempt.ts does the work): the inputs to feed the
 * machine next, and the attempt to run when there is one.
 * @example const { inputs, attempt } = beginAttempt(state, results, tools, command, Date.now());
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
  const r = begin(state, results, tools, step_id, attempt, now);
  if (!r.begun || !rt) return { inputs: r.inputs, attempt: null };
  const b = r.begun;
  return {
    inputs: r.inputs,
    attempt: {
      runId: state.run_id,
      step: b.step,
      attempt,
      fallback: b.fallback,
      first: !b.fallback && rt.retries_used === 0,
      action: b.action,
      parameters: b.parameters,
      idempotencyKey: b.idempotency_key,
      timeoutMs: b.timeout_ms,
      limitMs: b.limit_ms,
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
    limitMs: a.limitMs,
    signal: ctx.signal,
  });
}

/**
 * What an attempt's outcome tells the machine. A tool that defers to a person (`human.input`) leaves
 * the step running until `provideInput` answers. A tool that defers to a child run itself (the
 * Worker's `plan.execute`) is not run in process: only `agent.dispatch` runs a nested run here.
 */
export function resultInput(a: BegunAttempt, outcome: StepOutcome): MachineInput {
  const deferred = deferredOf(outcome);
  const step_id = a.step.id;
  if (deferred?.$deferred === 'input')
    return {
      type: 'await_input',
      step_id,
      attempt: a.attempt,
      prompt: deferred.prompt,
      ...(deferred.schema === undefined ? {} : { schema: deferred.schema }),
    };
  if (deferred) {
    const message = `${a.action} starts a child run of its own, which needs the Worker's Durable Objects; in process, run the plan with ${CHILD_RUN_ACTION} or as a step's subplan`;
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
