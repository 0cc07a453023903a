/**
 * The planning pipeline's inputs and outputs: the request (`POST /v1/plans`, `plan.decompose`), the
 * dependencies it runs with, the trace it keeps, and the outcome — data, not exceptions, so it
 * crosses RPC and goes into events intact.
 */
import type { ToolRegistry } from '../executor/registry';
import type { LlmEnv } from '../executor/tools/openai-client';
import type { Estimates } from '../plan/estimates';
import type { Finding } from '../plan/findings';
import type { Clock, IdSource, Plan, Strategy } from '../plan/model';
import type { FormatMode, TokenCount } from './chat';
import type { Rule } from './contracts';
import type { ProvenanceStore } from './provenance';
import type { AttemptOutcome } from './reliability';
import type { TemplateStore } from './template-store';
import type { Candidate } from './verifier';

/** A goal to plan (seed 001 `plan.decompose` parameters, SPEC §6). */
export type PlanRequest = {
  goal: string;
  /** Default `flat`. Strategies the engine drives (iterative, react, par, staged) are planned like flat. */
  strategy?: Strategy;
  /** Default 3. */
  max_depth?: number;
  /** Default 20. */
  max_steps?: number;
  /** Seed 001's name for `max_steps` (which wins when both are given). */
  max_subtasks?: number;
  token_budget?: number | null;
  /** The first model to try; default PLANNER_MODEL. */
  model?: string;
  temperature?: number;
  /** Prompt text replacing the template (`prompt_template` / `planning_prompt`); `{{ goal }}` etc. */
  prompt_template?: string;
  /** Seed 000's name for `prompt_template` (which wins when both are given). */
  planning_prompt?: string;
  /** A stored template's id (KV `prompt-template:<id>`). */
  prompt_template_id?: string;
  input?: unknown;
  /** Restrict the plan to these tool names. */
  tools?: string[];
  /** Generate this many candidates per attempt and keep the best (default 1: off). */
  n_best?: number;
  success_criteria?: string;
};

/** The environment variables planning reads. */
export type PlannerEnv = LlmEnv & { readonly PLANNER_FALLBACK_MODELS?: unknown };

/** What the pipeline runs with. Only `env`, `tools`, `clock` and `ids` are required. */
export type PlannerDeps = {
  env: PlannerEnv;
  /** The registry plans are validated against (restricted further by `PlanRequest.tools`). */
  tools: ToolRegistry;
  clock: Clock;
  ids: IdSource;
  /** The fetch LLM calls use; tests inject a scripted endpoint. Default: `llmFetch()`, then global. */
  fetch?: typeof fetch;
  templates?: TemplateStore;
  provenance?: ProvenanceStore;
  /** Rules for the rule-based fallback; default `builtinRules`. */
  rules?: readonly Rule[];
  /** Per LLM call, default 60 s: a hung endpoint costs this much, then the next model is tried. */
  timeoutMs?: number;
  /**
   * Retries of one model call that failed in transit (timeout, connection, 429, 5xx), with backoff
   * (0.5 s, doubling); default 0. The run's object sets 2.
   */
  llmRetries?: number;
  /** Repair prompts per model after its first answer, default 1. */
  maxRepairs?: number;
  /** Chooses among N-best candidates (index into the list); default {@link pickBest} in verifier.ts. */
  verifier?: (candidates: readonly Candidate[]) => number | Promise<number>;
  /** Secret values to redact from stored prompts; default: the env's *KEY/*TOKEN/*SECRET values. */
  secrets?: readonly string[];
  /** Observed tool latency (ms) for estimates. */
  latencyHistory?: Record<string, number>;
  /** Milliseconds for latency measurement; default `Date.now`. */
  now?: () => number;
  signal?: AbortSignal;
};

/** One entry of `planning_trace`: an LLM attempt, or the rule planner's turn. */
export type TraceEntry = {
  planner: 'llm' | 'rules';
  outcome: AttemptOutcome | 'no_match';
  /** LLM attempts: their order, and the provenance record's id. */
  seq?: number;
  attempt_id?: string;
  model?: string;
  /** 0 for a model's first answer, 1… for repairs. */
  retry?: number;
  candidate?: number;
  response_format?: FormatMode;
  /** The call error, the parse error, or the findings in one line. */
  message?: string;
  /** A call error's code (`llm_auth_failed`, `llm_rate_limited`, …). */
  error_code?: string;
  findings?: Finding[];
  /** Rule planner: the rule that matched. */
  rule?: string;
  tokens?: TokenCount;
  latency_ms?: number;
};

/** Tokens spent on planning, from the API's `usage`. */
export type PlanningTokens = { prompt: number; completion: number; total: number };

export type PlanningSuccess = {
  ok: true;
  plan: Plan;
  validation: { valid: true; errors: Finding[]; estimates: Estimates | null };
  planning_trace: TraceEntry[];
  planning_id: string;
  planner: 'llm' | 'rules';
  /** The model whose plan this is (null for the rule planner). */
  model: string | null;
  template: { id: string; version: string } | null;
  tokens: PlanningTokens;
};

/**
 * Why planning gave up: `planning_unavailable` (no LLM configured and no rule matches; the message
 * names the variables to set), `planning_failed` (every model and the rules failed; the whole trace
 * is in `details`), `invalid_request` (a request the pipeline cannot act on, e.g. an unknown tool
 * or template).
 */
export type PlanningErrorCode = 'planning_failed' | 'planning_unavailable' | 'invalid_request';

export type PlanningFailure = {
  ok: false;
  error: {
    code: PlanningErrorCode;
    message: string;
    retryable: boolean;
    details: { planning_trace: TraceEntry[]; variables?: string[] };
  };
  planning_trace: TraceEntry[];
  planning_id: string;
  tokens: PlanningTokens;
};

export type PlanningOutcome = PlanningSuccess | PlanningFailure;
