/**
 * Runs a plan in-process: the engine's RunMachine decides, this loop carries the commands out —
 * attempts through `executeTool`, outputs in a MemoryResultStore, revisions through a callback — on
 * a virtual clock that jumps to the machine's next wake-up (a retry's backoff) whenever nothing is
 * running, so retries cost no real waiting. The same loop a Durable Object runs, minus storage.
 */
import type { ErrorInfo } from '../../src/errors';
import { actionFor, scopeFor, stepDef } from '../../src/engine/decide';
import { RunMachine } from '../../src/engine/machine';
import type { Command, MachineInput, StepOutcome } from '../../src/engine/machine';
import { emptyRunState, MemoryResultStore } from '../../src/engine/state';
import type { RunState } from '../../src/engine/state';
import type { ToolRegistry } from '../../src/executor/registry';
import { executeTool } from '../../src/executor/run-step';
import { parseRunConfig } from '../../src/plan/config';
import type { RunConfigInput } from '../../src/plan/config';
import { TERMINAL_RUN_STATUSES } from '../../src/plan/model';
import type { IdSource, Plan, RunStatus } from '../../src/plan/model';
import { collectReferences, resolveValue } from '../../src/plan/references';

/** One attempt about to run, for {@link RunOptions.intercept}. */
export type AttemptInfo = { step_id: string; attempt: number; action: string };

export type ReviseCommand = Extract<Command, { type: 'revise' }>;

export type RunOptions = {
  runId: string;
  goal: string;
  plan: Plan;
  input?: unknown;
  /** The registry attempts run against (fresh per run: the eval tools keep per-run state). */
  tools: ToolRegistry;
  config?: RunConfigInput;
  ids: IdSource;
  /** Answers an attempt instead of its tool when it returns an outcome (failure injection). */
  intercept?: (attempt: AttemptInfo) => StepOutcome | undefined;
  /** Produces the `revise` (or `revision_failed`) input a `revise` command asks for. */
  revise?: (command: ReviseCommand, state: RunState, results: MemoryResultStore) => Promise<MachineInput>;
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

/** An attempt approved to run, with its resolved parameters (or the outcome it already has). */
type Begun = AttemptInfo & { parameters: Record<string, unknown>; early?: StepOutcome };

/** Upper bound on loop turns: a plan of 20 steps with retries and revisions needs far fewer. */
const MAX_TURNS = 10_000;
const START = Date.parse('2026-01-01T00:00:00.000Z');

/**
 * Runs `plan` to the end (or until nothing more can happen without a person).
 * @example const r = await runPlan({ runId: 'r1', goal, plan, tools: evalTools(), ids }); r.status // 'completed'
 */
export async function runPlan(opts: RunOptions): Promise<RunReport> {
  let t = START;
  const clock = { now: () => new Date(t) };
  const config = parseRunConfig(opts.config ?? {});
  const results = new MemoryResultStore();
  const machine = new RunMachine(emptyRunState(opts.runId, config), { clock, ids: opts.ids, results });
  const state = machine.state;
  const queue: Command[] = [];
  const feed = (input: MachineInput): void => {
    queue.push(...machine.handle(input).commands);
  };
  feed({
    type: 'create',
    run_id: opts.runId,
    goal: opts.goal,
    plan: opts.plan,
    config,
    input: opts.input ?? {},
    estimates: null,
  });

  /** Approves an attempt still current: resolves its parameters and records the invocation. */
  function begin(stepId: string, attempt: number): Begun | null {
    const rt = state.steps.get(stepId);
    if (!rt || rt.status !== 'running' || rt.attempt !== attempt) return null;
    const { action, parameters } = actionFor(stepDef(state, stepId), rt.on_fallback);
    const resolved = resolveValue(parameters, scopeFor(state, results, collectReferences(parameters).refs));
    const info = { step_id: stepId, attempt, action };
    if (!resolved.ok) {
      const message = `${resolved.missing.text} was never written`;
      return { ...info, parameters, early: failed('missing_input', message) };
    }
    const params = resolved.value as Record<string, unknown>;
    feed({
      type: 'invoked',
      step_id: stepId,
      attempt,
      tool: action,
      parameters: params,
      idempotency_key: `${opts.runId}:${stepId}:${attempt}`,
    });
    return { ...info, parameters: params };
  }

  async function runBegun(b: Begun): Promise<StepOutcome> {
    if (b.early) return b.early;
    const injected = opts.intercept?.(b);
    if (injected) return injected;
    const tool = opts.tools.get(b.action);
    if (!tool) return failed('unknown_tool', `No tool named "${b.action}" is registered`);
    const step = stepDef(state, b.step_id);
    const timeout = Math.min(step.timeout_ms ?? config.step_timeout * 1000, opts.maxAttemptMs ?? 30_000);
    return executeTool(tool, b.parameters, {
      runId: opts.runId,
      stepId: b.step_id,
      attempt: b.attempt,
      idempotencyKey: `${opts.runId}:${b.step_id}:${b.attempt}`,
      env: {},
      timeoutMs: timeout,
    });
  }

  for (let turn = 0; turn < MAX_TURNS; turn++) {
    const commands = queue.splice(0);
    const dispatches = commands.filter((c) => c.type === 'dispatch');
    for (const c of commands) {
      if (c.type !== 'revise') continue;
      feed(opts.revise ? await opts.revise(c, state, results) : noReviser());
    }
    if (dispatches.length > 0) {
      // Begin every attempt first (the machine records ToolInvoked), run them side by side, then
      // report in dispatch order so the event log does not depend on which finished first.
      const begun = dispatches.map((c) => begin(c.step_id, c.attempt));
      const outcomes = await Promise.all(begun.map((b) => (b ? runBegun(b) : null)));
      outcomes.forEach((outcome, k) => {
        const b = begun[k];
        if (b && outcome) feed({ type: 'result', step_id: b.step_id, attempt: b.attempt, outcome });
      });
      continue;
    }
    if (queue.length > 0) continue;
    if (TERMINAL_RUN_STATUSES.has(state.status)) break;
    const wake = machine.nextWakeAt();
    if (wake === null) break; // waiting for a person, or stalled: nothing in-process can move it
    t = Math.max(t, wake);
    feed({ type: 'tick' });
  }

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

function failed(code: string, message: string): StepOutcome {
  return { success: false, error: { code, message, retryable: false }, latency_ms: 0 };
}

function noReviser(): MachineInput {
  return {
    type: 'revision_failed',
    error: {
      code: 'planning_unavailable',
      message: 'This run has no planner for revisions',
      retryable: false,
    },
  };
}
