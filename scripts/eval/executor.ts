/**
 * Runs a plan in-process for the eval with the library's {@link LocalRunner} — the same command loop
 * the library's users get — on {@link VirtualTime}, so retries cost no real waiting. The eval's
 * additions are adapters: its tools are wrapped ({@link attemptTools}: failure injection, a real
 * time limit per attempt) and revisions come from a {@link PlanProvider} around its callback.
 */
import type { ErrorInfo } from '../../src/errors';
import type { RunState } from '../../src/engine/state';
import type { ToolRegistry } from '../../src/executor/registry';
import { LocalRunner } from '../../src/library/local-runner';
import type { PlanAttempt, PlanProvider, ReviseRequest } from '../../src/engine/plan-provider';
import type { RunConfigInput } from '../../src/plan/config';
import type { IdSource, Plan, RunStatus } from '../../src/plan/model';
import { attemptTools } from './attempt-tools';
import type { AttemptToolsOptions } from './attempt-tools';
import { VirtualTime } from './virtual-time';

export type { AttemptInfo } from './attempt-tools';

export type RunOptions = {
  runId: string;
  goal: string;
  plan: Plan;
  input?: unknown;
  /** The registry attempts run against (fresh per run: the eval tools keep per-run state). */
  tools: ToolRegistry;
  config?: RunConfigInput;
  ids: IdSource;
  /** Fails an attempt with this error instead of running its tool (failure injection). */
  intercept?: AttemptToolsOptions['intercept'];
  /** Makes the new version of the plan a revision asks for (or says why there is none). */
  revise?: (request: ReviseRequest) => Promise<PlanAttempt>;
  /** Longest real time one attempt may take, whatever the step's timeout says (default 30 s). */
  maxAttemptMs?: number;
};

export type RunReport = {
  status: RunStatus;
  /** Revisions the run took (PlanUpdated of kind `revision`). */
  revisions: number;
  error: ErrorInfo | null;
  /** The plan the run ended with (a revision's when there was one). */
  plan: Plan | null;
  step_statuses: Record<string, string>;
  final_output: unknown;
};

/**
 * Runs `plan` to the end (or until nothing more can happen without a person).
 * @example const r = await runPlan({ runId: 'r1', goal, plan, tools: evalTools(), ids }); r.status // 'completed'
 */
export async function runPlan(opts: RunOptions): Promise<RunReport> {
  const time = new VirtualTime();
  const tools = attemptTools(opts.tools, {
    time,
    intercept: opts.intercept,
    maxAttemptMs: opts.maxAttemptMs ?? 30_000,
  });
  const runner = new LocalRunner({
    tools,
    ...(opts.revise ? { planner: reviser(opts.revise, time) } : {}),
    clock: time.clock,
    timers: time.timers,
    ids: opts.ids,
  });
  runner.start({
    runId: opts.runId,
    goal: opts.goal,
    plan: opts.plan,
    input: opts.input ?? {},
    config: opts.config ?? {},
  });
  // Ended, or waiting for a person: either way the report is final. (Virtual time would otherwise
  // pass the question's deadline too, and report the timeout a person never had the time to beat.)
  let stop = () => {};
  const asked = new Promise<void>((resolve) => (stop = resolve));
  const unsubscribe = runner.subscribe((e) => {
    if (e.event_type === 'InputRequested') stop();
  });
  await Promise.race([runner.done(), time.idle(), asked]);
  unsubscribe();
  return reportOf(runner.state);
}

/** Revisions only: eval runs start from a plan, so the runner never asks for a first one. */
function reviser(revise: NonNullable<RunOptions['revise']>, time: VirtualTime): PlanProvider {
  return {
    draft: () =>
      Promise.resolve({
        ok: false,
        error: { code: 'planning_unavailable', message: 'Eval runs start from a plan', retryable: false },
      }),
    // The clock waits for the planner, as it waits for a tool.
    revise: (request) => time.during(() => revise(request)),
  };
}

function reportOf(state: Readonly<RunState>): RunReport {
  const step_statuses: Record<string, string> = {};
  for (const [id, rt] of state.steps) step_statuses[id] = rt.status;
  return {
    status: state.status,
    revisions: state.revision_count,
    error: state.error,
    plan: state.plan,
    step_statuses,
    final_output: state.final_output,
  };
}
