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

// In-process execution (SPEC §7, seed 000 §3): the PlanningPattern and the runner beneath it.
export { Agent, toolRegistry } from './library/agent';
export type { AgentSpec } from './library/agent';
export { randomIds, systemClock } from './library/defaults';
export { PlanningCallbacks, RevisionDecision } from './library/callbacks';
export type { PlanningHooks } from './library/callbacks';
export { executionStateOf, stepResultsOf } from './library/execution-state';
export type { PlanExecutionState, PlanRevision, StepResult } from './library/execution-state';
export { LocalRunner } from './library/local-runner';
export { agentDispatch } from './library/agent-dispatch';
export { humanInput } from './executor/tools/human-input';
export type { LocalRunnerOptions, RunnerHooks, StartRequest } from './library/local-runner';
export type { Timers } from './library/wake-timer';
export { resolvePlanningOptions, runConfigFor } from './library/options';
export type { PlanningPatternOptions, ResolvedPlanningOptions } from './library/options';
export { isPlanProvider } from './engine/plan-provider';
export type { DraftRequest, PlanAttempt, PlanProvider, ReviseRequest } from './engine/plan-provider';
export { pipelineProvider } from './library/pipeline-provider';
export type { LlmOptions, PipelineProviderOptions } from './library/pipeline-provider';
export { plannerProvider } from './library/planner-provider';
export type { PlannerProviderOptions } from './library/planner-provider';
export { PlanningPattern } from './library/planning-pattern';
export { mcpTools } from './library/mcp-tools';
export type { McpToolsOptions } from './mcp/tools';
export { parseMcpServers } from './mcp/config';
export type { McpServerConfig } from './mcp/config';
export type { RunOptions } from './library/planning-pattern';
export type { PlanExecutionResult, TokenUsage } from './library/result';

// The engine and tools the library is built on, for callers who drive a run themselves.
export { RunMachine } from './engine/machine';
export type { Command, MachineInput, Refusal, StepOutcome } from './engine/machine';
export { replay, snapshotRun } from './engine/snapshot';
export type { RunSnapshot } from './engine/snapshot';
export { emptyRunState, MemoryResultStore } from './engine/state';
export type { RunEvent, EventType } from './engine/events';
export { defineTool, ToolRegistry } from './executor/registry';
export type { AnyTool, ToolContext, ToolDefinition } from './executor/registry';
export { validatePlan } from './plan/validate';
export type { Finding, ValidationResult } from './plan/validate';
export { parseRunConfig } from './plan/config';
export type { RunConfig, RunConfigInput } from './plan/config';
export type { Clock, IdSource, Plan, PlanStep, RunStatus, StepStatus } from './plan/model';
export { EdgeplanError, ToolError } from './errors';
export type { ErrorInfo } from './errors';
