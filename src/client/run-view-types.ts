/**
 * The shapes of a run as a person follows it (run-view.ts folds its events into them): each step with
 * its attempts and the round it is in, the steps later plan versions replaced, and the run.
 */
import type { PlanStep } from './types';
import type { RunClock } from './run-time';

/** One attempt of a step, as its events tell it. */
export type AttemptView = {
  attempt: number;
  tool: string;
  parameters: Record<string, unknown>;
  idempotency_key: string;
  /** Epoch ms. */
  started_at: number;
  ended_at: number | null;
  latency_ms: number | null;
  success: boolean | null;
  output?: unknown;
  error: { code: string; message: string } | null;
  cached: boolean;
  /**
   * Its outcome came after the run had ended (a cancel while it ran): the tool did run, with its side
   * effects; a success still completes the step, which a retry then keeps.
   */
  after_run_ended: boolean;
  /** The plan version it ran under (its ToolInvoked's reference). */
  plan_version: number | null;
  /** It ran the step's fallback action (as its StepScheduled said), not the step's own. */
  fallback: boolean;
};

/**
 * Why a step runs again: a retry of the run (`POST /retry`) or a later plan version re-opened it. Its
 * attempts keep counting from the step's first (the engine's number, in idempotency rows and errors);
 * `first_attempt` is where this round began, so a view can say "attempt 1 of up to 2 in retry 1".
 */
export type StepRound = {
  kind: 'retry' | 'rerun';
  /** For a retry: which of the run's retries it is (1 = the first). */
  retry: number;
  /** For a re-run: the plan version that re-opened it. */
  plan_version: number | null;
  /** The step's attempt number that began this round; null until it starts. */
  first_attempt: number | null;
};

export type StepView = {
  id: string;
  action: string;
  dependencies: string[];
  /**
   * `interrupted`: it was running when the run ended (cancelled, failed elsewhere): not running any
   * more as far as the run goes, though its tool may have gone on — a late outcome still shows.
   */
  status: 'pending' | 'running' | 'retrying' | 'completed' | 'failed' | 'skipped' | 'interrupted';
  /** The number of its last attempt, counted over the whole run (retries and re-runs go on from it). */
  attempts: number;
  /** Null in the step's first round; else the retry or re-run it runs in now. */
  round: StepRound | null;
  /**
   * Attempts one round may take: 1 + its retries (the step's `retries`, else the run's
   * `retry_failed_steps`) + 1 with a `fallback_action`; null when the run's settings are not known.
   */
  attempt_limit: number | null;
  /** Epoch ms of the running attempt's start (ToolInvoked). */
  started_at: number | null;
  /** Of the last attempt that returned. */
  latency_ms: number | null;
  error: string | null;
  skip_reason: string | null;
  fallback: boolean;
  /** Every attempt, first first (a fallback's attempts included). */
  history: AttemptView[];
  /** The step as planned (description, parameters as written, fallback_action, …). */
  planned: PlanStep;
  /**
   * For a step that asked a person (`human.input`): who answered (InputReceived's `answered_by`) —
   * behind Cloudflare Access the signed-in identity, else the name they gave; absent when not said.
   */
  answered_by?: string | undefined;
  /**
   * How `answered_by` was established (InputReceived's `answered_by_via`: `access`, `token`,
   * `anonymous`); absent on an answer recorded before it was.
   */
  answered_by_via?: string | undefined;
  /**
   * While it waits for a retry (`retrying`): when the next attempt starts (epoch ms), and whether that
   * wait is what its tool's service asked (`Retry-After`) rather than the run's backoff.
   */
  next_attempt?: { at: number; retry_after: boolean } | undefined;
};

/**
 * A step as it was before a later plan version replaced it — removed from the plan, or re-opened to
 * run again under a changed definition after it failed — kept so its attempts and error stay visible.
 */
export type ReplacedStep = StepView & {
  /** The plan version the step belonged to. */
  plan_version: number | null;
  /** The version that replaced it, what kind of change that was, and why (the revision's reason, the approver's comment). */
  replaced_by: { version: number | null; kind: string; reason: string };
  /** `removed`: not in the new version; `rerun`: in it again, to run afresh. */
  change: 'removed' | 'rerun';
};

export type RunView = {
  run_id: string;
  goal: string;
  status: string;
  plan_version: number | null;
  steps: StepView[];
  /**
   * Steps later plan versions replaced, oldest first: a removed step, or the failed (or skipped)
   * incarnation of a step a revision runs again. Never in `steps`, which is the current plan.
   */
  replaced: ReplacedStep[];
  critical_path: string[];
  critical_path_ms: number | null;
  started_at: number | null;
  ended_at: number | null;
  final_output: unknown;
  /** Why the run failed or was aborted; null for a cancellation, which is no error. */
  error: string | null;
  /** Why a cancelled run was cancelled (`plan_rejected`, or the cancel's own reason); null otherwise. */
  cancel_reason: string | null;
  /**
   * A limit (`max_steps`) that stopped an iterative run's turns before its model said it was done,
   * in words (RunTerminated's `limit`); null otherwise.
   */
  limit_reached: string | null;
  waiting: {
    kind: 'approval' | 'input';
    prompt?: string | undefined;
    step_id?: string | undefined;
    /** The JSON Schema a `human.input` step's answer must fit, when its question gave one. */
    schema?: unknown;
    /** The plan version awaiting approval. */
    plan_version?: number | undefined;
    /** The question's id, its InputRequested event's seq: what an answer names (`question_seq`). */
    question_seq?: number | undefined;
    /**
     * A `human.input` step's question: when it is due (ISO 8601, its attempt's deadline) and what
     * happens then if nobody answers; absent for `ask_user`'s and on events recorded before.
     */
    deadline?: string | undefined;
    if_unanswered?: 'asked_again' | 'falls_back' | 'step_fails' | undefined;
    retries_left?: number | undefined;
  } | null;
  /**
   * How the last approval asked for was decided: by a person or by the deadline's default, and the
   * comment; `plan_version` is the version it was asked for, `revision` whether that was a version
   * after the first (`approval.revisions: "ask"`).
   */
  approval: {
    decision: 'granted' | 'rejected';
    by: string;
    comment: string | null;
    /**
     * The decider's name (`approver`): behind Cloudflare Access the verified identity, else a label as
     * given; `approver_via` says which (`access`, `token`, `link`, `anonymous`; absent on older events).
     */
    approver?: string | undefined;
    approver_via?: string | undefined;
    plan_version?: number | undefined;
    revision?: boolean | undefined;
  } | null;
  /** The plan awaits approval or was rejected: a retry will not run it (the API answers 409). */
  unapproved: boolean;
  /**
   * What the run worked around and someone should fix, once per code: `queue_not_consumed` (no
   * consumer took a queued step, so the run carries its steps out in its object), or
   * `held_past_queue_window` (the run was held, as by a rollback, past a queued step's window).
   */
  notices: { code: string; message: string; step_id?: string | undefined }[];
  last_seq: number;
  /**
   * The run's time as its events moved it — running, waiting for approval, waiting for input
   * (src/client/run-time.ts): `runTimeText(runTimeAt(view.clock, now))` says it as `edgeplan show` does.
   */
  clock: RunClock;
  /** How many times the run was retried (`RunResumed`). */
  retries: number;
  /** The run's `retry_failed_steps` (RunCreated's config); null before that event. */
  retry_failed_steps: number | null;
  /** Plan changes: who authored each version and why, with the tokens planning spent. */
  versions: {
    version: number | null;
    kind: string;
    reason: string;
    at: number;
    tokens?: { prompt: number; completion: number } | undefined;
    /** What a new version did to the steps of the one before (none for the first plan). */
    changes?: { added: string[]; changed: string[]; removed: string[] } | undefined;
    /**
     * An approver's edit (`approval_edit`): who made it, as {@link RunView.approval} names a decider —
     * kept here, since a later decision (a revision's) becomes the run's `approval`.
     */
    edited_by?: { approver?: string | undefined; approver_via?: string | undefined } | undefined;
  }[];
};
