/**
 * Child runs in process: a step with a sub-plan, and a step that names `agent.dispatch`, both record
 * `agent.dispatch` and run its plan (or goal) as a nested LocalRunner — the same tools, planner and
 * clock, the configuration and input the call carries. What the step gets is what the Worker's child
 * object reports (engine/child-outcome.ts): the rolled-up result, or `child_run_failed`.
 */
import { EdgeplanError, toErrorInfo, type ErrorInfo } from '../errors';
import { childOutcome, invalidChildPlan } from '../engine/child-outcome';
import { CHILD_RUN_ACTION, childRunId, MAX_CHILD_RUN_DEPTH } from '../engine/child-run';
import type { StepOutcome } from '../engine/machine';
import type { RunSnapshot } from '../engine/snapshot';
import { formatIssues } from '../executor/run-step';
import { agentDispatchInput } from '../executor/tools/agent-dispatch';
import type { Finding } from '../plan/findings';
import { isRecord, type Plan } from '../plan/model';
import { limitEnvNames } from '../plan/tea-meta';
import { settingsEnvOf } from '../plan/tea-settings';
import type { BegunAttempt } from './attempt';
import type { StartRequest } from './runner-options';
import { realTimers, type Timers } from './wake-timer';

/** Longest delay setTimeout accepts. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The part of a runner a child run needs. */
export type ChildRun = {
  start(req: StartRequest): void;
  done(): Promise<RunSnapshot>;
  cancel(reason?: string): unknown;
};

/**
 * Why a run `depth` levels below its tree's first run, whose tree has started `started` child runs of
 * the `most` it may (`MAX_CHILD_RUNS` in the runner's env, else 1,000), may not start another — the
 * Worker's limits (durable/child-run-limits.ts): a plan that dispatches itself would nest runners
 * without end, in this process's memory. Null when it may.
 */
export function childRunLimit(depth: number, started: number, most: number): ErrorInfo | null {
  const why =
    depth + 1 > MAX_CHILD_RUN_DEPTH
      ? `a child run would nest ${depth + 1} levels deep; child runs nest at most ${MAX_CHILD_RUN_DEPTH} deep`
      : started >= most
        ? `this run and its child runs have started ${started} child runs, the most one run's tree may (${most}, MAX_CHILD_RUNS)`
        : null;
  if (why === null) return null;
  return {
    code: 'child_run_limit',
    message: `Child run refused: ${why} (a plan that dispatches itself never stops)`,
    retryable: false,
  };
}

/**
 * Runs the child run an `agent.dispatch` attempt asks for on a fresh runner; never throws. The child
 * is stopped when the parent is (`signal`) or when the attempt's time is up (on `timers`).
 * @example const outcome = await runSubplan(attempt, () => new LocalRunner({ tools }), signal);
 */
export async function runSubplan(
  a: BegunAttempt,
  spawn: () => ChildRun,
  signal: AbortSignal,
  timers: Timers = realTimers,
): Promise<StepOutcome> {
  const started = Date.now();
  const failed = (error: ErrorInfo): StepOutcome => ({
    success: false,
    error,
    latency_ms: Date.now() - started,
  });
  const req = agentDispatchInput.safeParse(a.parameters);
  if (!req.success) {
    const message = `Invalid parameters for ${CHILD_RUN_ACTION}: ${formatIssues(req.error)}`;
    return failed({ code: 'invalid_parameters', message, retryable: false });
  }
  const { goal, config, input } = req.data;
  // As the Worker's child runs: the child reads no Worker variable its parent's step could not
  // (tea-meta.ts) — a model's plan could otherwise pass on one naming any of them.
  const plan = isRecord(req.data.plan)
    ? limitEnvNames(req.data.plan as unknown as Plan, settingsEnvOf(a.parameters))
    : req.data.plan;
  const runId = await childRunId({ run_id: a.runId, step_id: a.step.id, attempt: a.attempt });
  const child = spawn();
  // As the Worker does: the plan's own goal first, else the one given.
  const childGoal = (isRecord(plan) && typeof plan.goal === 'string' && plan.goal) || goal;
  try {
    child.start({
      runId,
      ...(childGoal ? { goal: childGoal } : {}),
      ...(plan !== undefined ? { plan } : {}),
      // As the Worker validates a child plan: its dependencies may be left to be derived.
      config: { ...config, require_dependencies: false },
      input: input ?? {},
    });
  } catch (err) {
    return failed(refusal(err));
  }
  const cancel = () => child.cancel(`step "${a.step.id}" of run ${a.runId} was cancelled`);
  // Past the attempt's deadline the parent step has timed out: stop the child rather than wait for it.
  const late = `${CHILD_RUN_ACTION} timed out after ${a.limitMs} ms`;
  let timedOut = false;
  const timer = timers.set(
    () => {
      timedOut = true;
      child.cancel(late);
    },
    Math.min(a.timeoutMs, MAX_TIMER_MS),
  );
  signal.addEventListener('abort', cancel, { once: true });
  if (signal.aborted) cancel();
  try {
    const end = await child.done();
    if (timedOut) return failed({ code: 'timeout', message: late, retryable: true });
    return childOutcome(end, end.started_at);
  } catch (err) {
    return failed(toErrorInfo(err));
  } finally {
    timers.clear(timer);
    signal.removeEventListener('abort', cancel);
  }
}

/** A child plan with findings fails the step as it does in the Worker. */
function refusal(err: unknown): ErrorInfo {
  if (err instanceof EdgeplanError && err.code === 'invalid_plan') {
    const errors = isRecord(err.details) ? err.details.errors : undefined;
    if (Array.isArray(errors)) return invalidChildPlan(errors as Finding[]);
  }
  return toErrorInfo(err);
}
