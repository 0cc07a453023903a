/**
 * edgeplan as a library (SPEC §7): the pieces that run anywhere — in a Worker, a Durable Object or
 * plain Node — without the HTTP layer. Nothing exported here imports `cloudflare:*` at runtime.
 */

// Planning (SPEC §3): contracts, the pipeline, and the planners.
export { isPlan, isStepYield, toStepStream } from './planner/contracts';
export type {
  HTNNode,
  HTNPlanner,
  Planner,
  PlannerFailure,
  PlannerLimits,
  PlannerResult,
  PlannerState,
  PlanYield,
  Rule,
  RulePlanner,
  StreamingPlanner,
} from './planner/contracts';
export { LLM_VARIABLES, parseModelList, planFromState, planGoal } from './planner/pipeline';
export type { PlanOptions } from './planner/pipeline';
export type {
  PlannerDeps,
  PlannerEnv,
  PlanningErrorCode,
  PlanningFailure,
  PlanningOutcome,
  PlanningSuccess,
  PlanningTokens,
  PlanRequest,
  TraceEntry,
} from './planner/types';
export { LlmPlanner } from './planner/llm-planner';
export { LlmStreamingPlanner } from './planner/streaming-planner';
export { RuleBasedPlanner } from './planner/rule-planner';
export type { RuleMatch, RulePlannerOptions } from './planner/rule-planner';
export { builtinRules } from './planner/builtin-rules';
export { MethodHtnPlanner, planWithHtn } from './planner/htn';
export type { HtnDomain, HtnMethod } from './planner/htn';
export { parsePlannerOutput, readNdjsonLine } from './planner/parse';
export type { NdjsonLine, OutputFormat, ParseResult, PlanCandidate } from './planner/parse';
export { DEFAULT_TEMPLATE, DEFAULT_TEMPLATE_ID, inlineTemplate, renderPrompt } from './planner/templates';
export type { PromptTemplate, RenderedPrompt } from './planner/templates';
export { KvTemplateStore, MemoryTemplateStore, resolveTemplate, templateKey } from './planner/template-store';
export type { TemplateStore } from './planner/template-store';
export { MemoryProvenanceStore } from './planner/provenance';
export type { PlanningAttempt, ProvenanceStore } from './planner/provenance';
export { D1ProvenanceStore } from './planner/provenance-d1';
export { orderModels, reliabilityScore } from './planner/reliability';
export type { AttemptOutcome, ModelReliability } from './planner/reliability';
export { redactSecrets } from './planner/redact';
export { pickBest } from './planner/verifier';
export type { Candidate } from './planner/verifier';
