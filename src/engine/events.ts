/**
 * Run events (SPEC §5): the seed-002 envelope and one typed payload per event type. The event log is
 * the source of truth — a run's state is the fold of its events (src/engine/evolve.ts).
 */
import type { ErrorInfo } from '../errors';
import type { RunConfig } from '../plan/config';
import type { Plan, PlanStep, RunStatus } from '../plan/model';
import type { Estimates } from '../plan/estimates';

export type TokenCount = {
  prompt: number;
  completion: number;
  /** Not reported by the server (a planning stream cut off before its usage): estimated from the text. */
  estimated?: true;
};

export type PlanChangeKind = 'revision' | 'approval_edit' | 'rollback' | 'turn';

export type RevisionTrigger =
  | 'step_failure'
  | 'unexpected_result'
  | 'new_information'
  | 'user_request'
  | 'token_budget'
  | 'failure_rate'
  /** Iterative and ReAct runs: a turn's steps are done; the planner decides what comes next. */
  | 'next_turn';

/**
 * Why a step was skipped: `when_false`, `dependency_failed`, `missing_input` (a path never written),
 * `failure_strategy` (on_step_failure: skip), `run_terminated` (the run ended, failed or aborted,
 * before the step could run), `cancelled` (the run was cancelled before or while the step ran),
 * `not_reached` (a TEA graph run ended without entering the node).
 */
export const SKIP_REASONS = [
  'when_false',
  'dependency_failed',
  'missing_input',
  'failure_strategy',
  'run_terminated',
  'cancelled',
  'not_reached',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/**
 * How the name on a decision or an answer (`approver`, `answered_by`) was established, recorded
 * beside it as `approver_via` / `answered_by_via`: `access` — the identity Cloudflare Access verified
 * (a signed-in person, or a service token's common_name); `token` — stated by a caller holding the API
 * token (an API call, `/mcp`, the CLI, the dashboard without Access); `link` — typed by whoever opened
 * the approval link (its capability token, no identity); `anonymous` — stated to an API open without a
 * token (`ALLOW_ANONYMOUS`). Only `access` is verified. Events recorded before it lack the key.
 */
export const NAME_SOURCES = ['access', 'token', 'link', 'anonymous'] as const;
export type NameSource = (typeof NAME_SOURCES)[number];

/** Payload per event type. */
export type EventPayloads = {
  RunCreated: {
    run_id: string;
    goal: string;
    config: RunConfig;
    input: unknown;
    state?: Record<string, unknown>;
  };
  /** `tokens`: what planning spent, counted in the run's token usage. */
  PlanAuthored: { plan: Plan; tokens?: TokenCount };
  PlanValidated: { valid: true; estimates: Estimates | null };
  RunStarted: Record<string, never>;
  ApprovalRequested: { deadline_at: number | null; plan_version: number };
  /**
   * `approver`: who decided — behind Cloudflare Access the signed-in identity, else the name the
   * decider gave, as given (a label, not an identity). `approver_via`: how that name was established
   * ({@link NameSource}) — without `approver`, how the decision came (`link`: the approval link,
   * `token`: an API token, `anonymous`: an API open without one). An optional key: events recorded
   * before it lack it, and a decision without a name lacks it before 2026-11-30.
   */
  ApprovalGranted: {
    comment?: string;
    by: 'approver' | 'timeout';
    approver?: string;
    approver_via?: NameSource;
  };
  ApprovalRejected: {
    comment?: string;
    by: 'approver' | 'timeout';
    approver?: string;
    approver_via?: NameSource;
  };
  /**
   * One delivery attempt of the signed approval webhook: `ok` when the receiver answered 2xx. A failed
   * one is tried again at `next_attempt_at` (null: no further attempt — the deadline, or a setup error).
   */
  ApprovalWebhookAttempted: {
    attempt: number;
    ok: boolean;
    status?: number;
    error?: string;
    next_attempt_at: number | null;
  };
  /**
   * A new plan version. `revision` (replanning, recovery, a user's replan) counts toward
   * `max_revisions`; `approval_edit` and `rollback` do not. `approver` / `approver_via`: an
   * `approval_edit`'s decider, as on the `ApprovalGranted` that follows it — kept with the version, so
   * it is still named once a later decision (a revision's) is the run's last. Optional keys added
   * after storage format 2: an edit recorded before them lacks them, and a release before reads past them.
   */
  PlanUpdated: {
    plan: Plan;
    reason: string;
    kind: PlanChangeKind;
    changed_steps: string[];
    tokens?: TokenCount;
    approver?: string;
    approver_via?: NameSource;
  };
  /**
   * Streaming execution (SPEC §4): a step that streamed in from the planner and validated on arrival
   * joins the plan and may run before the plan is complete; `PlanAuthored` closes the stream.
   */
  StepStreamed: { step: PlanStep; plan_id: string };
  /**
   * The run pauses new work until a revision arrives (`PlanUpdated`) or fails. `deferred`: asked while
   * the plan still streamed in — noted, and asked again (without the flag) once the plan is whole.
   */
  RevisionRequested: {
    trigger: RevisionTrigger;
    reason: string;
    step_id?: string;
    strategy: string;
    deferred?: boolean;
  };
  /**
   * The run waits for `POST /input` (revision strategy `ask_user`, or a `human.input` step). A
   * `human.input` step's question carries when it is due and what happens then (absent on one
   * recorded before it was, and on `ask_user`'s, which waits without a limit).
   */
  InputRequested: {
    reason: string;
    step_id?: string;
    prompt?: string;
    schema?: unknown;
    /** ISO 8601: the instant the step's attempt times out, unanswered. */
    deadline?: string;
    /** What happens at `deadline`, as the step's retries and fallback say when it is asked. */
    if_unanswered?: QuestionTimeout;
    /** The step's retries left when it is asked (a timeout uses one to ask again). */
    retries_left?: number;
  };
  StepScheduled: {
    step_id: string;
    attempt: number;
    action: string;
    fallback: boolean;
    dispatch: 'queue' | 'inline';
    deadline_at: number;
  };
  ToolInvoked: {
    step_id: string;
    attempt: number;
    tool: string;
    parameters: Record<string, unknown>;
    idempotency_key: string;
    /** A tool with its own time limit (child runs, a person's answer) moves the attempt's deadline. */
    deadline_at?: number;
    /**
     * That tool's own limit, which a timeout then names (absent: the step's `step_timeout`, as for
     * events stored before it was recorded).
     */
    limit_ms?: number;
  };
  ToolReturned: {
    step_id: string;
    attempt: number;
    success: boolean;
    output?: unknown;
    error?: ErrorInfo;
    latency_ms: number;
    tokens?: TokenCount;
    cached?: boolean;
    /** A TEA node's result that does not fit the workflow's `state_schema` (merged all the same, as TEA does). */
    schema_findings?: string[];
    /**
     * The run had already ended (`RunTerminated`: cancelled, failed, aborted) when this outcome came —
     * an attempt still in flight then, on a queue consumer or in the object. Its tool did run, with
     * whatever side effects it has, so the outcome is recorded all the same: a success completes the
     * step (a retry of the run keeps it and does not run it again). The ended run decides nothing on
     * it: its status and final output stay as they were, and no reflection or revision follows.
     */
    after_run_ended?: true;
  };
  /**
   * A queued attempt that no consumer began within `waited_ms` is carried out in the run's object
   * instead — the same attempt, with the same idempotency key (its tool never ran: no `ToolInvoked`
   * came before). `error` says why (`queue_not_consumed`, naming what to fix; `held_past_queue_window`
   * when the run was held past the attempt's window, as by a rollback); the attempt gets a new
   * deadline, as a step scheduled now would.
   */
  StepRedispatched: {
    step_id: string;
    attempt: number;
    action: string;
    fallback: boolean;
    dispatch: 'inline';
    deadline_at: number;
    waited_ms: number;
    error: ErrorInfo;
  };
  StepRetried: { step_id: string; attempt: number; retry_at: number; delay_ms: number; error: ErrorInfo };
  StepFailed: { step_id: string; error: ErrorInfo; handled: boolean };
  StepSkipped: { step_id: string; reason: SkipReason; detail?: string };
  RunResumed: { step_ids: string[] };
  /**
   * A TEA graph run (a workflow with conditions or loops) goes to its next node, decided from the
   * state after `from` settled; `visit` counts the node's entries (a second visit is a new attempt of
   * it). `node` may be `__end__`: the run ends and the nodes never entered are skipped.
   */
  NodeEntered: { node: string; from: string | null; visit: number; rule?: string };
  /** `tokens`: what the LLM judge spent on this reflection (counted in the run's usage and budget). */
  ReflectionAdded: { step_id?: string; reflection: string; exit_criteria_met?: boolean; tokens?: TokenCount };
  /** An LLM judge is asked whether a step's output meets its `expected_output`; the run waits for it. */
  ReflectionRequested: { step_id: string; expected: string };
  /**
   * ReAct: the thought of a turn and the action it chose (`step_id`, the one step the turn added), or
   * no action (the model holds the goal met). The observation is that step's `ToolReturned`.
   * `dropped`: further steps the model proposed, left out (one tool call per turn).
   */
  ThoughtAdded: { turn: number; thought: string; step_id?: string; action?: string; dropped?: string[] };
  /**
   * A `staged` run enters a stage: `from` the stage before it, by `rule` (the transition's `when`,
   * absent for the next in order); `rewind` when it is an earlier stage again.
   */
  StageStarted: { stage: string; from?: string; rule?: string; rewind?: boolean };
  /** `output`: the stage's output — the output of the last of its steps — checked against its `output_schema`. */
  StageCompleted: { stage: string; output?: unknown };
  /**
   * `step_id`: the answer to a step waiting for a person (`human.input`), which it completes.
   * `answered_by`: who sent it — behind Cloudflare Access the signed-in identity, else the name the
   * caller gave (`approver`, a label as on ApprovalGranted); absent when neither said. Added after
   * storage format 2 as an optional key: a release before it reads the event without it.
   * `answered_by_via`: how that name was established ({@link NameSource}; `link` never), beside it
   * since it was added, optional in the same way.
   */
  InputReceived: { input: unknown; step_id?: string; answered_by?: string; answered_by_via?: NameSource };
  /**
   * `tokens`: what a failed planning or revision spent, or one still running when the run ended
   * (counted in the run's usage). `limit`: a
   * setting stopped the run's turns before its model said it was done (turn-limit.ts).
   */
  RunTerminated: {
    status: Extract<RunStatus, 'completed' | 'failed' | 'aborted' | 'cancelled'>;
    reason: string;
    final_output?: unknown;
    error?: ErrorInfo;
    tokens?: TokenCount;
    limit?: RunLimit;
  };
};

/** A limit that ended an iterative run's turns: which setting, its value, the turns taken, in words. */
/**
 * What a `human.input` step's unanswered question leads to at its deadline: the step is asked again
 * (a retry), its `fallback_action` runs, or it fails (its `on_failure` applies as to any failure).
 */
export type QuestionTimeout = 'asked_again' | 'falls_back' | 'step_fails';

/** When a `human.input` step's question is due, and what happens then (`InputRequested`'s). */
export type InputDeadline = { deadline: string; if_unanswered: QuestionTimeout; retries_left: number };

export type RunLimit = { setting: 'max_steps'; value: number; turns: number; message: string };

export type EventType = keyof EventPayloads;

export type EventReferences = {
  plan_id: string | null;
  plan_version: number | null;
  step_id?: string;
  prompt_version?: string;
  tool_version?: string;
};

/** The seed-002 envelope, `seq` gap-free per run. */
export type RunEvent<T extends EventType = EventType> = {
  [K in T]: {
    event_id: string;
    seq: number;
    event_type: K;
    timestamp: string;
    actor: string;
    references: EventReferences;
    payload: EventPayloads[K];
  };
}[T];

/** An event before the envelope is filled in. */
export type EventDraft<T extends EventType = EventType> = {
  [K in T]: { type: K; payload: EventPayloads[K]; references?: Partial<EventReferences> };
}[T];

export function draft<K extends EventType>(
  type: K,
  payload: EventPayloads[K],
  references?: Partial<EventReferences>,
): EventDraft<K> {
  return { type, payload, references };
}
