/**
 * What a run's decisions ask for besides running steps — planning a goal, revising the plan, judging
 * an output, telling an approver, asking for input — turned into the machine input it leads to
 * (`planned`, `revise`, `judged`, …), so its outcome is an event like everything else. One module for
 * every host: the Durable Object and the in-process runner differ only in their {@link SidePorts}
 * (where plans come from, who judges, how an approver hears of a plan). Pure: no I/O but the ports'.
 */
import type { TokenCount } from './events';
import { EdgeplanError, toErrorInfo } from '../errors';
import type { ErrorInfo } from '../errors';
import { stagesOf, type StageConfig } from '../plan/config';
import type { IdSource, Plan } from '../plan/model';
import { isStepYield } from '../planner/contracts';
import type { Command, MachineInput } from './machine-types';
import type { DraftRequest, PlanProvider, ReviseRequest } from './plan-provider';
import { snapshotRun } from './snapshot';
import type { ResultStore, RunState } from './state';

/**
 * How long a cancel waits for the planning it stops to tell what its calls spent: an aborted call
 * ends at once (in the Worker, then one D1 write); a planner that ignores the abort is not waited
 * for longer. Both hosts' cancels.
 */
export const STOP_PLANNING_MS = 2_000;

export type SideCommand = Exclude<Command, { type: 'dispatch' } | { type: 'abort' }>;

/** What a host plugs in. Absent ports mean "nothing to do here; someone outside answers later". */
export type SidePorts = {
  planner: PlanProvider | null;
  /**
   * An LLM judge of a step's output against its `expected_output`: its verdict, or `unanswered` when
   * the model answered without one (its tokens were spent all the same); throws when it got no answer.
   */
  judge?: (req: {
    step_id: string;
    expected: string;
    output: unknown;
    signal?: AbortSignal;
  }) => Promise<
    { ok: boolean; reason: string; tokens?: TokenCount } | { unanswered: ErrorInfo; tokens?: TokenCount }
  >;
  /** Tells an approver a plan waits; the decision when it is made at once (a hook), else the input to record. */
  approval?: (plan: Plan, deadlineAt: number | null) => Promise<MachineInput | null>;
  /** Asks for input; the answer when there is one now. */
  inputRequested?: (req: { reason: string; step_id?: string }) => Promise<unknown>;
};

export type SideContext = {
  state: RunState;
  results: ResultStore;
  ports: SidePorts;
  ids: IdSource;
  /** Feeds the machine an input before the answer (a streamed step); resolves once it is applied. */
  emit(input: MachineInput): Promise<void>;
  /** Aborted when the answer is no longer wanted (the work's deadline passed, the run ended). */
  signal?: AbortSignal;
  /** Told what a planning or revision's model calls spent, each as it is answered. */
  spent?: (tokens: TokenCount) => void;
};

/**
 * The input a side command leads to, or null when it waits on someone outside.
 * @example const input = await carryOut({ type: 'plan' }, ctx); if (input) apply(input);
 */
export async function carryOut(c: SideCommand, ctx: SideContext): Promise<MachineInput | null> {
  const { state: s, ports } = ctx;
  switch (c.type) {
    case 'plan': {
      if (!ports.planner) return failureInput(c, new EdgeplanError('planning_unavailable', NO_PLANNER));
      const req = draftRequest(s, ctx);
      if (ports.planner.stream && streams(s)) return streamPlan(ports.planner, req, ctx);
      const out = await ports.planner.draft(req);
      return out.ok
        ? {
            type: 'planned',
            // A staged run's first stage was asked with the stage in the goal; the run keeps its own.
            plan: { ...out.plan, goal: s.goal },
            estimates: out.estimates,
            ...(out.tokens ? { tokens: out.tokens } : {}),
          }
        : {
            type: 'planning_failed',
            error: withDetails(out.error, out.details),
            ...(out.tokens ? { tokens: out.tokens } : {}),
          };
    }
    case 'revise': {
      if (!ports.planner) return failureInput(c, new EdgeplanError('planning_unavailable', NO_PLANNER));
      const out = await ports.planner.revise(reviseRequest(c, ctx));
      return out.ok
        ? {
            type: 'revise',
            plan: out.plan,
            reason: c.reason,
            kind: c.trigger === 'next_turn' ? 'turn' : 'revision',
            ...(out.tokens ? { tokens: out.tokens } : {}),
          }
        : {
            type: 'revision_failed',
            error: withDetails(
              { ...out.error, message: `Could not revise the plan (${c.reason}): ${out.error.message}` },
              out.details,
            ),
            ...(out.tokens ? { tokens: out.tokens } : {}),
          };
    }
    case 'approval_requested':
      if (!ports.approval || !s.plan) return null;
      return ports.approval(s.plan, c.deadline_at);
    case 'input_requested': {
      if (!ports.inputRequested) return null;
      const req = c.step_id === undefined ? { reason: c.reason } : { reason: c.reason, step_id: c.step_id };
      const answer = await ports.inputRequested(req);
      return answer === undefined ? null : { type: 'input', input: answer };
    }
    case 'judge': {
      // Without a judge the structural check already applied (engine/expected-output.ts).
      if (!ports.judge) return null;
      const output = ctx.results.getOutput(c.step_id).value ?? null;
      try {
        const v = await ports.judge({
          step_id: c.step_id,
          expected: c.expected,
          output,
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        });
        if ('unanswered' in v)
          return { ...unanswered(c.step_id, v.unanswered), ...(v.tokens ? { tokens: v.tokens } : {}) };
        return {
          type: 'judged',
          step_id: c.step_id,
          ok: v.ok,
          reason: v.reason,
          ...(v.tokens ? { tokens: v.tokens } : {}),
        };
      } catch (err) {
        // A judge that cannot answer says nothing against the step.
        return unanswered(c.step_id, toErrorInfo(err));
      }
    }
  }
}

/**
 * A planning failure with what the planner told about it (`planning_trace`: every attempt, its model,
 * outcome and findings), which its message points the reader to.
 */
function withDetails(error: ErrorInfo, details: unknown): ErrorInfo {
  return details === undefined ? error : { ...error, details };
}

/** Side work that threw or never answered: planning and revisions fail as data; the rest keeps waiting. */
export function failureInput(c: SideCommand, err: unknown): MachineInput | null {
  const error = toErrorInfo(err);
  if (c.type === 'plan') return { type: 'planning_failed', error };
  if (c.type === 'revise') return { type: 'revision_failed', error };
  if (c.type === 'judge') return unanswered(c.step_id, error);
  return null;
}

/** A judge that could not answer says nothing against the step, nor that an exit criterion is met. */
function unanswered(stepId: string, error: ErrorInfo): MachineInput {
  const reason = `the judge could not answer (${error.message}); the output stands`;
  return { type: 'judged', step_id: stepId, ok: true, reason, unanswered: true };
}

/**
 * Eager runs that need no approval stream their plan: each step runs as soon as it has streamed in and
 * validated. Streaming suits flat plans; turn-based, staged and hierarchical plans are planned whole,
 * and so is a run asking for the best of several plans (`n_best`): a verifier picks among whole plans,
 * which a stream running its first steps as they arrive never has.
 */
function streams(s: RunState): boolean {
  const whole =
    s.config.strategy !== undefined && s.config.strategy !== 'flat' && s.config.strategy !== 'par';
  const nBest = (s.config.planning?.n_best ?? 1) > 1;
  return s.config.mode === 'eager' && !s.config.require_plan_approval && !whole && !nBest;
}

/** Streaming execution (SPEC §4): streamed steps join the run as they arrive; the whole plan closes it. */
async function streamPlan(planner: PlanProvider, req: DraftRequest, ctx: SideContext): Promise<MachineInput> {
  // Issued again (the first issue stalled or was lost): the steps that streamed in keep their plan.
  const planId = ctx.state.plan?.id ?? ctx.ids.id('plan');
  let finish: { plan?: Plan; result?: unknown } | undefined;
  try {
    for await (const y of planner.stream!({ ...req, plan_id: planId })) {
      if (isStepYield(y)) await ctx.emit({ type: 'streamed_step', step: y, plan_id: planId });
      else if ('finish' in y && y.finish.plan) finish = y.finish;
    }
  } catch (err) {
    const e = toErrorInfo(err);
    const code = e.code === 'tool_error' ? 'planning_failed' : e.code;
    const error = { ...e, code, retryable: e.retryable && code === 'timeout' };
    const details = err instanceof EdgeplanError ? err.details : undefined;
    const tokens = tokensIn(details);
    return {
      type: 'planning_failed',
      error: withDetails(error, details),
      ...(tokens ? { tokens } : {}),
    };
  }
  if (!finish?.plan) {
    const error = { code: 'planning_failed', message: 'The planner streamed no plan', retryable: false };
    return { type: 'planning_failed', error };
  }
  const tokens = tokensIn(finish.result);
  // The steps already ran under planId: the whole plan is that plan, whatever id a provider gave it.
  const plan = { ...finish.plan, id: planId };
  return { type: 'planned', plan, estimates: null, ...(tokens ? { tokens } : {}) };
}

/** What a first plan is asked from: a staged run asks for its first stage. */
function draftRequest(s: RunState, ctx: SideContext): DraftRequest {
  const stage = currentStage(s);
  return {
    goal: stage
      ? `${s.goal}\n\nStage ${stage.name}: ${stage.prompt ?? 'plan the steps of this stage'}`
      : s.goal,
    input: s.input,
    limits: limitsOf(s, stage),
    ...(s.config.strategy ? { strategy: s.config.strategy } : {}),
    ...(stage?.tools ? { tools: stage.tools } : {}),
    ...(s.config.planning ? { planning: s.config.planning } : {}),
    timeout_ms: s.config.planning_timeout_s * 1000,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(ctx.spent ? { on_spent: ctx.spent } : {}),
  };
}

/** What the planner is told about a revision: the plan, what its steps did, and why. */
function reviseRequest(c: Extract<SideCommand, { type: 'revise' }>, ctx: SideContext): ReviseRequest {
  const s = ctx.state;
  // The next turn of a staged run is planned within the stage it is in.
  const stage = c.trigger === 'next_turn' ? currentStage(s) : undefined;
  const snap = snapshotRun(s, ctx.results);
  const req: ReviseRequest = {
    goal: s.goal,
    input: s.input,
    limits: limitsOf(s, stage),
    plan: s.plan!,
    step_statuses: snap.step_statuses,
    step_results: snap.step_results,
    state: snap.state,
    reason: c.reason,
    trigger: c.trigger,
    revision_strategy: c.strategy,
    ...(stage?.tools ? { tools: stage.tools } : {}),
    ...(s.config.planning ? { planning: s.config.planning } : {}),
    timeout_ms: s.config.planning_timeout_s * 1000,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(ctx.spent ? { on_spent: ctx.spent } : {}),
  };
  if (c.step_id !== undefined) {
    const error = s.steps.get(c.step_id)?.error;
    req.failure = {
      step_id: c.step_id,
      reason: error?.message ?? c.reason,
      ...(error ? { code: error.code } : {}),
    };
  }
  return req;
}

function limitsOf(s: RunState, stage: StageConfig | undefined): DraftRequest['limits'] {
  return {
    max_steps: s.config.max_steps,
    max_depth: s.config.max_depth,
    token_budget: stage?.max_tokens ?? s.config.token_budget ?? null,
    ...(s.config.require_fallbacks ? { require_fallbacks: true } : {}),
  };
}

/** The stage a `staged` run is in, if it is one. */
function currentStage(s: RunState): StageConfig | undefined {
  return s.config.strategy === 'staged' && s.stage >= 0 ? stagesOf(s.config)[s.stage] : undefined;
}

/**
 * Whether a tool may be used under `allowed` — names or namespace prefixes (`demo.` or `demo.*`);
 * everything when `allowed` is absent.
 * @example toolAllowed('demo.echo', ['demo.*']) // true
 */
export function toolAllowed(name: string, allowed: readonly string[] | undefined): boolean {
  if (!allowed) return true;
  return allowed.some(
    (a) => a === name || name.startsWith(a.endsWith('*') ? a.slice(0, -1) : a.endsWith('.') ? a : `${a}.`),
  );
}

function tokensIn(result: unknown): { prompt: number; completion: number } | undefined {
  if (typeof result !== 'object' || result === null || !('tokens' in result)) return undefined;
  const t = result.tokens;
  if (typeof t !== 'object' || t === null) return undefined;
  const { prompt, completion } = t as { prompt?: unknown; completion?: unknown };
  return typeof prompt === 'number' && typeof completion === 'number' ? { prompt, completion } : undefined;
}

const NO_PLANNER =
  'This run has no planner: give the runner a `planner` (a Planner or a PlanProvider) to plan goals and revisions';
