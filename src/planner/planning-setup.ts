/**
 * What one planning request runs with, shared by the pipeline and the streaming planner: the
 * validation context (tools restricted to the state's), and the LLM attempt context (client,
 * template, schema, provenance, redaction).
 */
import { ToolRegistry } from '../executor/registry';
import { createOpenAIClient } from '../executor/tools/openai-client';
import type { LlmConfig } from '../executor/tools/openai-client';
import type { CandidateContext } from './candidate';
import type { PlannerState } from './contracts';
import type { AttemptContext } from './llm-attempt';
import { llmFetch } from './llm-transport';
import { planOutputSchema } from './output-schema';
import { secretsOf } from './redact';
import type { RenderedPrompt } from './templates';
import type { PlannerDeps } from './types';

const DEFAULT_TIMEOUT_MS = 60_000;

/** Validation against `deps.tools` restricted to the tools the state lists. */
export function candidateContext(state: PlannerState, deps: PlannerDeps, planId?: string): CandidateContext {
  const allowed = new Set(state.tools.map((t) => t.name));
  const ctx: CandidateContext = {
    state,
    registry: new ToolRegistry(deps.tools.list().filter((t) => allowed.has(t.name))),
    clock: deps.clock,
    ids: deps.ids,
    latencyHistory: deps.latencyHistory,
  };
  if (planId !== undefined) ctx.planId = planId;
  return ctx;
}

/** The context every LLM attempt of one planning request shares. */
export function attemptContext(args: {
  planningId: string;
  llm: LlmConfig;
  prompt: RenderedPrompt;
  temperature: number | undefined;
  candidate: CandidateContext;
  deps: PlannerDeps;
  /** The attempts a request already made (a stream's, when it is asked again whole). */
  afterSeq?: number | undefined;
}): AttemptContext {
  const { deps, candidate } = args;
  let seq = args.afterSeq ?? 0;
  return {
    planningId: args.planningId,
    client: createOpenAIClient(deps.env, deps.fetch ?? llmFetch(), {
      timeoutMs: deps.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    }),
    baseURL: args.llm.baseURL,
    template: args.prompt.template,
    temperature: args.temperature,
    schema: planOutputSchema(candidate.state.strategy === 'hierarchical'),
    candidate,
    provenance: deps.provenance,
    secrets: deps.secrets ?? secretsOf(deps.env),
    now: deps.now ?? Date.now,
    clock: deps.clock,
    ids: deps.ids,
    signal: deps.signal,
    retries: deps.llmRetries ?? 0,
    nextSeq: () => ++seq,
  };
}
