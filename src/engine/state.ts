/**
 * The run state the engine folds events into. Small per-step bookkeeping lives in memory; step
 * outputs and state variables — the large part — live behind {@link ResultStore}, so the Durable
 * Object can keep them in SQLite rows while the library and replay use {@link MemoryResultStore}.
 */
import type { ErrorInfo } from '../errors';
import type { RevisionTrigger, RunLimit, SkipReason } from './events';
import type { RunConfig } from '../plan/config';
import type { PlanGraph } from '../plan/graph';
import type { Plan, RunStatus, StepStatus } from '../plan/model';
import { MinHeap } from './min-heap';

export type StepRuntime = {
  status: StepStatus;
  /** Attempts started so far (the next one is attempt + 1). Never reset, so attempt numbers stay unique. */
  attempt: number;
  /** Dependencies not yet settled. */
  waiting: number;
  /** Retries used in the current round (reset by a revision or a resumed run). */
  retries_used: number;
  fallback_used: boolean;
  /** The attempt now running is the fallback action. */
  on_fallback: boolean;
  /** A failure routed to an error branch: dependents are not blocked by it. */
  handled: boolean;
  invoked: boolean;
  retry_at: number | null;
  deadline_at: number | null;
  /**
   * The current attempt's time limit when its tool has its own (a child run, a person's answer) and
   * moved `deadline_at` by it; null: the step's timeout. A timeout names this figure.
   */
  limit_ms: number | null;
  started_at: string | null;
  finished_at: string | null;
  error: ErrorInfo | null;
  latency_ms: number | null;
  skip_reason: SkipReason | null;
  /** How the current attempt was dispatched (inline attempts are re-run after a restart). */
  dispatch: 'queue' | 'inline' | null;
  /**
   * The plan version whose revision last replaced this step's definition (0: never replaced). It
   * becomes part of the idempotency key, so a replaced step is a new effect (engine/idempotency.ts).
   */
  key_version: number;
  /** TEA graph runs: how many times the node was entered (0: not yet, or not a graph run). */
  visit: number;
  /**
   * The version of the tool the current attempt invoked (its `ToolInvoked` said it), so the attempt's
   * `ToolReturned` names it too (SPEC §5's envelope); absent before the invocation, and for a tool
   * that declares none.
   */
  tool_version?: string;
};

export type RunState = {
  run_id: string;
  status: RunStatus;
  goal: string;
  config: RunConfig;
  input: unknown;
  plan: Plan | null;
  graph: PlanGraph | null;
  steps: Map<string, StepRuntime>;
  /** Steps whose dependencies are settled and that wait for a slot, by plan order. */
  ready: MinHeap;
  /** Steps running now. */
  running: Set<string>;
  /** Wake-up times: retry backoffs and attempt deadlines, by step. */
  timers: Map<string, number>;
  /** Steps whose attempt failed and that wait for the failure decision (retry, fallback, fail). */
  needs_decision: Set<string>;
  /** Failed steps whose failure the run-level strategy has not dealt with (skip, abort, continue). */
  unhandled_failures: Set<string>;
  adaptive_window: number;
  revision_count: number;
  /** While awaiting approval: when the default action applies (ms), or null for never. */
  approval: {
    deadline_at: number | null;
    decision: 'pending' | 'granted' | 'rejected';
    /** Who made a decision taken: `timeout` when the deadline's `default_action` did, not a person. */
    by?: 'approver' | 'timeout';
  } | null;
  /** A revision was requested and not yet delivered: no new step starts meanwhile. */
  revising: { trigger: string; reason: string; step_id?: string } | null;
  /** A revision asked for while the plan streamed in (`deferred`): asked once the plan is whole. */
  deferred_revision: { trigger: RevisionTrigger; reason: string; step_id?: string } | null;
  /** Iterative / ReAct turns taken, and whether the last one added nothing (the run may end). */
  turns: number;
  turn_settled: boolean;
  /** `staged` runs: the current stage's index (-1 before the first), and whether it is open. */
  stage: number;
  stage_open: boolean;
  /** The open stage has its steps (the first plan, or its turn's revision). */
  stage_planned: boolean;
  /** The steps the current stage planned (its output is the last of them to complete). */
  stage_steps: string[];
  /** How often a transition went back to an earlier stage. */
  stage_rewinds: number;
  /** Steps whose output an LLM judge is checking; the run does not end before the verdicts. */
  judging: string[];
  /** Steps are streaming in from the planner: the plan is not complete, so the run cannot be. */
  streaming: boolean;
  /** Steps failed since the last plan version (the failure-rate trigger looks at new failures only). */
  failures_since_revision: number;
  /** The near-the-token-budget revision was asked for already. */
  budget_warned: boolean;
  /**
   * The last answer to a failed step's question (`skip`, `abort`, `replan`, `retry`) and who gave it:
   * what a second person answering the same question is told was decided.
   */
  failure_answered: {
    step_id: string;
    action: string;
    answered_by?: string;
    /** The question answered (its InputRequested's seq); none for one asked before questions were. */
    question_seq?: number;
  } | null;
  /**
   * The last answer to a `human.input` step's question: who gave it and when (the InputReceived's
   * timestamp), what a late answer naming that question (`question_seq`) is told. Null in a row an
   * older release wrote.
   */
  question_answered: {
    step_id: string;
    answered_by?: string;
    answered_at: string;
    question_seq?: number;
  } | null;
  /**
   * Why the run waits for input, while `awaiting_input`; `schema`: what a `human.input` answer must
   * fit; `seq`: the question's id, its InputRequested event's seq (none in a row an older release
   * wrote), which an answer may name (`question_seq`) so it answers this question and no later one.
   */
  awaiting: { reason: string; step_id?: string; schema?: unknown; seq?: number } | null;
  token_usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  created_at: string | null;
  started_at: string | null;
  completed_at: string | null;
  final_output: unknown;
  error: ErrorInfo | null;
  termination_reason: string | null;
  /** The limit that ended an iterative run's turns before its model said it was done; null otherwise. */
  limit_reached: RunLimit | null;
  /** TEA graph runs: the node the run is at (`__end__` once it ended), null before the first. */
  nav_at: string | null;
  /** Last applied event. */
  seq: number;
  /** Steps whose runtime changed since the owner last persisted them. */
  dirty: Set<string>;
};

/** Where outputs and state variables live. Synchronous: SQLite in a Durable Object is. */
export interface ResultStore {
  getOutput(stepId: string): { found: boolean; value?: unknown };
  setOutput(stepId: string, value: unknown): void;
  deleteOutput(stepId: string): void;
  /** Top-level state variable (`state.<key>`). */
  getVar(key: string): { found: boolean; value?: unknown };
  setVar(key: string, value: unknown): void;
  varKeys(): string[];
}

export class MemoryResultStore implements ResultStore {
  readonly outputs = new Map<string, unknown>();
  readonly vars = new Map<string, unknown>();

  getOutput(stepId: string): { found: boolean; value?: unknown } {
    return this.outputs.has(stepId) ? { found: true, value: this.outputs.get(stepId) } : { found: false };
  }
  setOutput(stepId: string, value: unknown): void {
    this.outputs.set(stepId, value);
  }
  deleteOutput(stepId: string): void {
    this.outputs.delete(stepId);
  }
  getVar(key: string): { found: boolean; value?: unknown } {
    return this.vars.has(key) ? { found: true, value: this.vars.get(key) } : { found: false };
  }
  setVar(key: string, value: unknown): void {
    this.vars.set(key, value);
  }
  varKeys(): string[] {
    return [...this.vars.keys()];
  }
}

export function newStepRuntime(): StepRuntime {
  return {
    status: 'blocked',
    attempt: 0,
    waiting: 0,
    retries_used: 0,
    fallback_used: false,
    on_fallback: false,
    handled: false,
    invoked: false,
    retry_at: null,
    deadline_at: null,
    limit_ms: null,
    started_at: null,
    finished_at: null,
    error: null,
    latency_ms: null,
    skip_reason: null,
    dispatch: null,
    key_version: 0,
    visit: 0,
  };
}

export function emptyRunState(runId: string, config: RunConfig): RunState {
  return {
    run_id: runId,
    status: 'planning',
    goal: '',
    config,
    input: null,
    plan: null,
    graph: null,
    steps: new Map(),
    ready: new MinHeap(),
    running: new Set(),
    timers: new Map(),
    needs_decision: new Set(),
    unhandled_failures: new Set(),
    adaptive_window: 1,
    revision_count: 0,
    approval: null,
    revising: null,
    deferred_revision: null,
    awaiting: null,
    failure_answered: null,
    question_answered: null,
    streaming: false,
    judging: [],
    turns: 0,
    turn_settled: false,
    stage: -1,
    stage_open: false,
    stage_planned: false,
    stage_steps: [],
    stage_rewinds: 0,
    failures_since_revision: 0,
    budget_warned: false,
    token_usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    created_at: null,
    started_at: null,
    completed_at: null,
    final_output: null,
    error: null,
    termination_reason: null,
    limit_reached: null,
    nav_at: null,
    seq: 0,
    dirty: new Set(),
  };
}
