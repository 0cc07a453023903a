/**
 * Plans from the planning pipeline (SPEC §3): an OpenAI-compatible model when `llm` is given — with
 * repair, fallback models and, last, the rule-based planner — else the rules alone. The same
 * `planFromState` the Durable Object uses; only the environment comes from arguments instead of
 * bindings.
 */
import type { ToolRegistry } from '../executor/registry';
import { readLlmConfig } from '../executor/tools/openai-client';
import type { Clock, IdSource } from '../plan/model';
import type { PlannerState, Rule } from '../planner/contracts';
import { planFromState } from '../planner/pipeline';
import type { ProvenanceStore } from '../planner/provenance';
import { MemoryTemplateStore } from '../planner/template-store';
import { DEFAULT_SYSTEM, DEFAULT_TEMPLATE, inlineTemplate } from '../planner/templates';
import type { PlannerEnv, PlanningOutcome } from '../planner/types';
import type { PlanAttempt, PlanProvider, ReviseRequest } from './plan-provider';

/** An OpenAI-compatible endpoint (OpenAI, Workers AI, AI Gateway, Ollama, vLLM, a test double). */
export type LlmOptions = {
  /** Omit for servers that need no key (Ollama, vLLM). */
  apiKey?: string;
  /** Default: OpenAI's API. */
  baseURL?: string;
  /** Default `gpt-4o-mini`. */
  model?: string;
  /** Models to try, in order, when `model` produces no valid plan. */
  fallbackModels?: readonly string[];
  /** The fetch planning (and `llm.call` steps) use; tests and offline examples pass a scripted one. */
  fetch?: typeof fetch;
  temperature?: number;
  /** Per model call, default 60 s. */
  timeoutMs?: number;
};

export type PipelineProviderOptions = {
  tools: ToolRegistry;
  llm?: LlmOptions;
  /** Rules for the rule-based planner (the pipeline's last fallback; alone when there is no `llm`). */
  rules?: readonly Rule[];
  /** Added to the planner's system prompt (seed 000's agent `system_prompt`). */
  systemPrompt?: string;
  /** Replaces the prompt template's text (seed 000 `planning_prompt`). */
  planningPrompt?: string | null;
  provenance?: ProvenanceStore;
  clock: Clock;
  ids: IdSource;
};

const TEMPLATE_ID = 'library.planning';

/**
 * @example
 * const provider = pipelineProvider({ tools, llm: { baseURL: 'http://localhost:11434/v1', model: 'llama3.1' }, clock, ids });
 */
export function pipelineProvider(opts: PipelineProviderOptions): PlanProvider {
  const { llm } = opts;
  const templates = new MemoryTemplateStore([
    {
      ...(opts.planningPrompt ? inlineTemplate(opts.planningPrompt) : DEFAULT_TEMPLATE),
      id: TEMPLATE_ID,
      system: opts.systemPrompt ? `${DEFAULT_SYSTEM}\n\n${opts.systemPrompt}` : DEFAULT_SYSTEM,
    },
  ]);
  const deps = {
    env: llmEnv(llm),
    tools: opts.tools,
    clock: opts.clock,
    ids: opts.ids,
    templates,
    ...(llm?.fetch ? { fetch: llm.fetch } : {}),
    ...(llm?.timeoutMs !== undefined ? { timeoutMs: llm.timeoutMs } : {}),
    ...(opts.rules ? { rules: opts.rules } : {}),
    ...(opts.provenance ? { provenance: opts.provenance } : {}),
  };
  const options = { template: { id: TEMPLATE_ID }, temperature: llm?.temperature };
  const tools = opts.tools.describe();
  return {
    // Without a model the pipeline has only its rules, which plan goals from scratch.
    canRevise: readLlmConfig(deps.env) !== null,
    draft: async (r) => {
      const state: PlannerState = {
        goal: r.goal,
        input: r.input,
        tools,
        limits: r.limits,
        strategy: r.strategy ?? 'flat',
      };
      return planAttemptOf(await planFromState(state, options, deps));
    },
    revise: async (r) => planAttemptOf(await planFromState(revisionState(r, tools), options, deps)),
  };
}

/** The planner state of a revision, as the Durable Object builds it (src/durable/side-work.ts). */
export function revisionState(r: ReviseRequest, tools: PlannerState['tools']): PlannerState {
  const state: PlannerState = {
    goal: r.goal,
    input: r.input,
    tools,
    limits: r.limits,
    strategy: r.plan.strategy,
    plan: r.plan,
    step_statuses: r.step_statuses,
    step_results: r.step_results,
    state: r.state,
    reason:
      r.revision_strategy === 'insert_recovery'
        ? `${r.reason}. Insert recovery steps; keep the rest of the plan.`
        : r.reason,
  };
  if (r.failure) state.failure = r.failure;
  return state;
}

/** The environment variables the pipeline reads, from options instead of bindings. */
export function llmEnv(llm: LlmOptions | undefined): PlannerEnv {
  if (!llm) return {};
  return {
    OPENAI_API_KEY: llm.apiKey,
    OPENAI_BASE_URL: llm.baseURL,
    PLANNER_MODEL: llm.model,
    PLANNER_FALLBACK_MODELS: llm.fallbackModels?.join(','),
  };
}

/**
 * The pipeline's outcome as a {@link PlanProvider} answers: the plan with its estimates and tokens,
 * or the error.
 * @example const attempt = planAttemptOf(await planFromState(revisionState(request, tools), {}, deps));
 */
export function planAttemptOf(out: PlanningOutcome): PlanAttempt {
  if (!out.ok) {
    const { code, message, retryable, details } = out.error;
    return { ok: false, error: { code, message, retryable }, details };
  }
  return {
    ok: true,
    plan: out.plan,
    estimates: out.validation.estimates,
    tokens: { prompt: out.tokens.prompt, completion: out.tokens.completion },
  };
}
