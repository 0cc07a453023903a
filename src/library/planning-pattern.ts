/**
 * Seed 000's `PlanningPattern` (§3): generate a plan for a query, optionally have it approved, then
 * execute it — in process, on the same engine as the Durable Object (validation, the run machine,
 * its events), with in-memory state. Works in a Worker and in plain Node.
 */
import { isErrorCode, type ErrorCode } from '../error-codes';
import { EdgeplanError } from '../errors';
import type { RunConfig } from '../plan/config';
import type { Plan, PlanInput } from '../plan/model';
import { pickCallback, PlanningCallbacks } from './callbacks';
import { toolRegistry, type AgentSpec } from './agent-spec';
import { randomIds, systemClock } from './defaults';
import { executionStateOf, type PlanExecutionState } from './execution-state';
import { LocalRunner } from './local-runner';
import {
  resolvePlanningOptions,
  runConfigFor,
  type PlanningPatternOptions,
  type ResolvedPlanningOptions,
} from './options';
import { isPlanProvider, type PlanAttempt, type PlanProvider } from '../engine/plan-provider';
import type { CheckContext } from './plan-versions';
import { withPatternRules } from './pattern-provider';
import { checkLlmOptions } from './llm-options';
import { llmEnv, pipelineProvider } from './pipeline-provider';
import { plannerProvider } from './planner-provider';
import { buildResult, type PlanExecutionResult } from './result';
import { planningDeadlineMs, planningTimeout } from './side-deadline';

/** Per-call choices. */
export type RunOptions = {
  /** The run's input (`{{ input.<path> }}` in step parameters). */
  input?: unknown;
  runId?: string;
  /** Aborting cancels the run; the result says `cancelled`. */
  signal?: AbortSignal;
};

/**
 * @example
 * const pattern = new PlanningPattern({ executionMode: 'parallel', maxParallel: 5, continueOnFailure: true });
 * const result = await pattern.execute({ tools: [searchLogs], planner }, 'Analyze these 10 log files for errors');
 * console.log(result.success, result.finalOutput, pattern.getExecutionState()?.stepStatuses);
 */
export class PlanningPattern {
  readonly options: ResolvedPlanningOptions;
  readonly #callbacks: Partial<PlanningCallbacks> | undefined;
  readonly #onStepFailureGiven: boolean;
  #plan: Plan | null = null;
  #runner: LocalRunner | null = null;

  /** Throws an `invalid_options` EdgeplanError naming the first bad option. */
  constructor(options: PlanningPatternOptions = {}) {
    this.options = resolvePlanningOptions(options);
    this.#callbacks = options.callbacks;
    this.#onStepFailureGiven = options.onStepFailure !== undefined;
  }

  /** A validated plan for `query` (after `onPlanGenerated`); throws the planner's error when there is none. */
  async generatePlan(agent: AgentSpec, query: string, options: RunOptions = {}): Promise<Plan> {
    const provider = this.#provider(agent, null);
    const config = runConfigFor(this.options);
    // Bounded as a run's planning is (side-deadline.ts): a planner that never answers is aborted and
    // the call fails with planning_timeout, instead of the promise never settling.
    const deadline = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort = (): void => {};
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = planningTimeout(config);
        deadline.abort(err);
        reject(err);
      }, planningDeadlineMs(config));
      // The caller's abort ends the call too, whether or not the planner heeds its signal.
      onAbort = () => {
        const why: unknown = options.signal?.reason;
        reject(
          why instanceof Error ? why : new EdgeplanError('aborted', `generatePlan aborted: ${String(why)}`),
        );
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
    });
    let out: PlanAttempt;
    try {
      out = await Promise.race([
        provider.draft({ goal: query, input: options.input, limits: this.#limits(), signal }),
        late,
      ]);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
    if (!out.ok) throw errorOf(out);
    this.#plan = out.plan;
    return out.plan;
  }

  /**
   * Executes a plan — a generated one, or one written by hand (`id`, `version`, `created_at` may be
   * left out) — validated first: an invalid plan throws `invalid_plan` with every finding. Resolves
   * when the run has ended, whatever the outcome; `success` says how it went.
   */
  executePlan(
    agent: AgentSpec,
    plan: Plan | PlanInput,
    options: RunOptions = {},
  ): Promise<PlanExecutionResult> {
    return this.#execute(agent, { plan, goal: plan.goal ?? '' }, options);
  }

  /** Plans `query` and executes the plan: one run, planning tokens included in `tokenUsage`. */
  execute(agent: AgentSpec, query: string, options: RunOptions = {}): Promise<PlanExecutionResult> {
    return this.#execute(agent, { goal: query }, options);
  }

  /**
   * The next version of `currentState.plan` from the agent's planner: completed steps kept as they
   * ran, the rest re-planned for `reason`. Returns the plan; it does not change a running execution.
   */
  async revisePlan(agent: AgentSpec, currentState: PlanExecutionState, reason: string): Promise<Plan> {
    const plan = currentState.plan;
    if (!plan) throw new EdgeplanError('invalid_request', `Run ${currentState.runId} has no plan to revise`);
    const out = await this.#baseProvider(agent).revise({
      goal: plan.goal,
      limits: this.#limits(),
      plan,
      step_statuses: currentState.stepStatuses,
      step_results: currentState.stepResults,
      state: currentState.variables,
      reason,
      trigger: 'user_request',
      revision_strategy: this.options.revisionStrategy,
    });
    if (!out.ok) throw errorOf(out);
    return out.plan;
  }

  /** The plan of the latest execution (its current version), else the latest generated plan. */
  getPlan(): Plan | null {
    return this.#runner?.state.plan ?? this.#plan;
  }

  /** The latest execution's state — live while it runs, final after. Null before any execution. */
  getExecutionState(): PlanExecutionState | null {
    const r = this.#runner;
    return r ? executionStateOf(r.snapshot(), r.events) : null;
  }

  async #execute(
    agent: AgentSpec,
    what: { goal: string; plan?: Plan | PlanInput },
    options: RunOptions,
  ): Promise<PlanExecutionResult> {
    const started = Date.now();
    const cb = <N extends keyof PlanningCallbacks>(name: N) =>
      pickCallback(name, agent.callbacks, this.#callbacks);
    // With a planner of its own the agent's `llm` still serves its `llm.call` steps: checked here too.
    checkLlmOptions(agent.llm);
    let runner: LocalRunner | null = null;
    const provider = this.#provider(agent, () => runner);
    const env = Object.fromEntries(
      Object.entries({ ...llmEnv(agent.llm), ...agent.env }).filter(([, v]) => v !== undefined),
    );
    const r = new LocalRunner({
      tools: toolRegistry(agent.tools),
      planner: provider,
      env,
      ...(agent.llm?.fetch ? { fetch: agent.llm.fetch } : {}),
      clock: agent.clock ?? systemClock,
      ids: agent.ids ?? randomIds,
      hooks: {
        stepStarted: (step) => cb('onStepStart')(step),
        stepSettled: (step, result) => cb('onStepComplete')(step, result),
        approve: (plan) => cb('onPlanApproved')(plan),
        inputRequested: async (request) => {
          // A failed step waiting for a decision (`ask_user`) is a revision decision; the machine
          // takes it as `{action: "replan" | "retry" | "skip" | "abort"}`.
          if (request.step_id !== undefined && r.state.steps.get(request.step_id)?.status === 'failed') {
            const state = executionStateOf(r.snapshot(), r.events);
            return { action: await cb('onRevisionNeeded')(state, request.reason) };
          }
          return cb('onInputRequested')(request);
        },
      },
    });
    runner = r;
    const onEvent = cb('onEvent');
    r.subscribe((e) => onEvent(e));
    r.start({
      ...(options.runId !== undefined ? { runId: options.runId } : {}),
      goal: what.goal,
      ...(what.plan ? { plan: what.plan } : {}),
      config: this.#configFor(agent, provider),
      input: options.input ?? null,
    });
    this.#runner = r;
    const cancel = () => r.cancel('aborted by the caller');
    options.signal?.addEventListener('abort', cancel, { once: true });
    if (options.signal?.aborted) cancel();
    try {
      const snapshot = await r.done();
      const authored = r.events.find((e) => e.event_type === 'PlanAuthored');
      const first = authored?.event_type === 'PlanAuthored' ? authored.payload.plan : null;
      if (!first) {
        const error = snapshot.error ?? {
          code: 'planning_failed',
          message: `Run ${snapshot.run_id} has no plan`,
          retryable: false,
        };
        const code = isErrorCode(error.code) ? error.code : 'planning_failed';
        // The error's details travel with it: a failed planning's message points at details.planning_trace.
        throw new EdgeplanError(code, error.message, {
          retryable: error.retryable,
          ...(error.details !== undefined ? { details: error.details } : {}),
        });
      }
      return buildResult({
        plan: first,
        snapshot,
        events: r.events,
        executionTime: (Date.now() - started) / 1000,
      });
    } finally {
      options.signal?.removeEventListener('abort', cancel);
    }
  }

  /**
   * The agent's plan source with this pattern's rules on top: the strategy, `onPlanGenerated` on every
   * first plan, `onRevisionNeeded` before every revision the run asks for.
   */
  #provider(agent: AgentSpec, runner: (() => LocalRunner | null) | null): PlanProvider {
    const base = this.#baseProvider(agent);
    const ctx: CheckContext = {
      tools: toolRegistry(agent.tools),
      clock: agent.clock ?? systemClock,
      ids: agent.ids ?? randomIds,
      limits: this.#limits(),
    };
    const live = (): PlanExecutionState | null => {
      const r = runner?.();
      return r ? executionStateOf(r.snapshot(), r.events) : null;
    };
    return withPatternRules(base, {
      check: ctx,
      strategy: this.options.hierarchical ? 'hierarchical' : 'flat',
      onPlanGenerated: pickCallback('onPlanGenerated', agent.callbacks, this.#callbacks),
      onRevisionNeeded: pickCallback('onRevisionNeeded', agent.callbacks, this.#callbacks),
      live,
    });
  }

  /**
   * The run configuration. A failed step asks for a revision by default — unless nothing could make
   * one (no LLM, no planner, no `onRevisionNeeded` of the user's), when it fails the run instead.
   */
  #configFor(agent: AgentSpec, provider: PlanProvider): RunConfig {
    const config = runConfigFor(this.options);
    const decides = [agent.callbacks, this.#callbacks].some(
      (c) => typeof c?.onRevisionNeeded === 'function' && c.onRevisionNeeded !== DEFAULT_REVISION_DECISION,
    );
    if (!this.#onStepFailureGiven && provider.canRevise === false && !decides)
      config.on_step_failure = 'abort';
    return config;
  }

  /** Where the agent's plans come from: its planner, else the LLM pipeline (or its rules alone). */
  #baseProvider(agent: AgentSpec): PlanProvider {
    const tools = toolRegistry(agent.tools);
    const clock = agent.clock ?? systemClock;
    const ids = agent.ids ?? randomIds;
    if (agent.planner) {
      return isPlanProvider(agent.planner)
        ? agent.planner
        : plannerProvider(agent.planner, { tools, clock, ids });
    }
    return pipelineProvider({
      tools,
      clock,
      ids,
      planningPrompt: this.options.planningPrompt,
      ...(agent.llm ? { llm: agent.llm } : {}),
      ...(agent.rules ? { rules: agent.rules } : {}),
      ...(agent.systemPrompt !== undefined ? { systemPrompt: agent.systemPrompt } : {}),
    });
  }

  #limits() {
    const o = this.options;
    return {
      max_steps: o.maxSteps,
      max_depth: o.maxDecompositionDepth,
      token_budget: o.tokenBudget,
      ...(o.requireFallbacks ? { require_fallbacks: true } : {}),
    };
  }
}

// eslint-disable-next-line @typescript-eslint/unbound-method -- compared, never called
const DEFAULT_REVISION_DECISION = PlanningCallbacks.prototype.onRevisionNeeded;

function errorOf(out: Extract<PlanAttempt, { ok: false }>): EdgeplanError {
  // A provider of the team's own may answer with codes of its own: kept in the message.
  const known = isErrorCode(out.error.code);
  const message = known ? out.error.message : `${out.error.code}: ${out.error.message}`;
  return new EdgeplanError(known ? (out.error.code as ErrorCode) : 'planning_failed', message, {
    details: out.details,
    retryable: out.error.retryable,
  });
}
