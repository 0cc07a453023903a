/**
 * Plans from the planning pipeline (SPEC §3): an OpenAI-compatible model when `llm` is given — with
 * repair, fallback models and, last, the rule-based planner — else the rules alone. The same
 * provider the Durable Object uses (planner/planning-provider.ts); only the environment comes from
 * arguments instead of bindings.
 */
import type { ToolRegistry } from '../executor/registry';
import type { Clock, IdSource } from '../plan/model';
import type { PlanYield, Rule } from '../planner/contracts';
import { planningProvider } from '../planner/planning-provider';
import type { ProvenanceStore } from '../planner/provenance';
import { MemoryTemplateStore } from '../planner/template-store';
import { DEFAULT_SYSTEM, DEFAULT_TEMPLATE, inlineTemplate } from '../planner/templates';
import type { PlannerEnv } from '../planner/types';
import type { PlanAttempt, PlanProvider } from '../engine/plan-provider';
import { EdgeplanError } from '../errors';
import { checkLlmOptions, type LlmOptions } from './llm-options';

export type { LlmOptions } from './llm-options';

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
/** A model call that failed in transit is tried this many times more, as the run's object does. */
const LLM_RETRIES = 2;

/**
 * @example
 * const provider = pipelineProvider({ tools, llm: { baseURL: 'http://localhost:11434/v1', model: 'llama3.1' }, clock, ids });
 */
export function pipelineProvider(opts: PipelineProviderOptions): PlanProvider {
  const llm = checkLlmOptions(opts.llm);
  const templates = new MemoryTemplateStore([
    {
      ...(opts.planningPrompt ? inlineTemplate(opts.planningPrompt) : DEFAULT_TEMPLATE),
      id: TEMPLATE_ID,
      system: opts.systemPrompt ? `${DEFAULT_SYSTEM}\n\n${opts.systemPrompt}` : DEFAULT_SYSTEM,
    },
  ]);
  const provider = planningProvider(
    {
      env: llmEnv(llm),
      tools: opts.tools,
      clock: opts.clock,
      ids: opts.ids,
      templates,
      ...(llm?.fetch ? { fetch: llm.fetch } : {}),
      ...(llm?.timeoutMs !== undefined ? { timeoutMs: llm.timeoutMs } : {}),
      llmRetries: llm?.retries ?? LLM_RETRIES,
      ...(opts.rules ? { rules: opts.rules } : {}),
      ...(opts.provenance ? { provenance: opts.provenance } : {}),
    },
    { template: { id: TEMPLATE_ID }, temperature: llm?.temperature },
  );
  return {
    canRevise: provider.canRevise,
    draft: async (r) => inProcessWords(await provider.draft(r)),
    revise: async (r) => inProcessWords(await provider.revise(r)),
    // As in the Worker, an eager run that needs no approval runs each step as soon as it streams in.
    ...(provider.stream ? { stream: (r) => inProcessStream(provider.stream!(r)) } : {}),
  };
}

/** A plan stream whose "no LLM" refusal names the agent's `llm` options, as a whole plan's does. */
async function* inProcessStream(yields: AsyncIterable<PlanYield>): AsyncIterable<PlanYield> {
  try {
    yield* yields;
  } catch (err) {
    if (!(err instanceof EdgeplanError) || err.code !== 'planning_unavailable') throw err;
    const worded = inProcessWords({
      ok: false,
      error: { code: err.code, message: err.message, retryable: err.retryable, details: err.details },
      details: err.details,
    });
    if (worded.ok) throw err;
    throw new EdgeplanError(err.code, worded.error.message, {
      details: worded.details,
      retryable: err.retryable,
    });
  }
}

/** Where the pipeline's "no LLM" finding begins; what follows names the Worker's variables. */
const NO_LLM = 'no LLM is configured';

/** What configures the pipeline's LLM in process: the agent's `llm` options, which {@link llmEnv} maps. */
const IN_PROCESS_LLM_OPTIONS = ['llm.apiKey', 'llm.baseURL', 'llm.model', 'llm.fallbackModels'];

/**
 * The pipeline's `planning_unavailable` says which variables to set — the Worker's bindings
 * (OPENAI_API_KEY, …), which nothing in process reads. Here it names the agent's `llm` options instead.
 */
function inProcessWords(attempt: PlanAttempt): PlanAttempt {
  if (attempt.ok || attempt.error.code !== 'planning_unavailable') return attempt;
  const at = attempt.error.message.indexOf(NO_LLM);
  if (at < 0) return attempt;
  const message =
    `${attempt.error.message.slice(0, at)}${NO_LLM}: give the agent \`llm: { apiKey }\` (OpenAI), or ` +
    '`llm: { baseURL }` for an OpenAI-compatible endpoint (Workers AI, AI Gateway, Ollama, vLLM; with `apiKey` ' +
    'if it needs one), and optionally `model` (default gpt-4o-mini) and `fallbackModels`; or a `planner` or ' +
    '`rules` of its own.';
  return {
    ...attempt,
    error: { ...attempt.error, message, details: naming(attempt.error.details) },
    details: naming(attempt.details),
  };
}

/** Details whose `variables` name the Worker's, naming `llm`'s options instead. */
function naming(details: unknown): unknown {
  return typeof details === 'object' && details !== null && 'variables' in details
    ? { ...details, variables: IN_PROCESS_LLM_OPTIONS }
    : details;
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
