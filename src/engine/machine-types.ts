/** The run machine's inputs, commands and results. */
import type { ErrorCode } from '../error-codes';
import type { ErrorInfo } from '../errors';
import type { StepOutcome as RunnerOutcome } from '../executor/run-step';
import type { RunConfig } from '../plan/config';
import type { Estimates } from '../plan/estimates';
import type { Clock, IdSource, Plan, PlanStep } from '../plan/model';
import type { NameSource, PlanChangeKind, RevisionTrigger, RunEvent, TokenCount } from './events';
import type { ResultStore, RunState } from './state';

/** The result of one attempt, as the step runner produces it and `ToolReturned` records it. */
export type StepOutcome = RunnerOutcome;

export type MachineInput =
  | {
      type: 'create';
      run_id: string;
      goal: string;
      /** Absent for a goal: the run starts in `planning` and the owner plans it (`plan` command). */
      plan?: Plan;
      config: RunConfig;
      input: unknown;
      estimates: Estimates | null;
      state?: Record<string, unknown>;
    }
  | {
      type: 'invoked';
      step_id: string;
      attempt: number;
      tool: string;
      parameters: Record<string, unknown>;
      idempotency_key: string;
      tool_version?: string;
      deadline_at?: number;
      limit_ms?: number;
    }
  | { type: 'result'; step_id: string; attempt: number; outcome: StepOutcome }
  /**
   * A queued attempt no consumer took within its window (`waited_ms`): carried out in the run's
   * object instead, same attempt and idempotency key; `error` says why (`queue_not_consumed`, `held_past_queue_window`).
   */
  | { type: 'redispatch'; step_id: string; attempt: number; waited_ms: number; error: ErrorInfo }
  | { type: 'tick' }
  | { type: 'cancel'; reason?: string }
  /**
   * The object's decision on an input threw (a bug, or a plan that runs the engine out of stack):
   * the run ends `failed` with `error`, instead of meeting the same throw on every wake.
   */
  | { type: 'fault'; error: ErrorInfo }
  | { type: 'resume'; step_id?: string }
  /** The planner delivered the plan of a run created from a goal (already validated). */
  | { type: 'planned'; plan: Plan; estimates: Estimates | null; tokens?: TokenCount }
  | { type: 'planning_failed'; error: ErrorInfo; tokens?: TokenCount }
  /** A step streamed in from the planner, validated on arrival (its dependencies streamed in before it). */
  | { type: 'streamed_step'; step: PlanStep; plan_id: string }
  /** An approver's decision; a `modify` carries the edited plan, validated, with its new version. */
  | {
      type: 'approval';
      decision: 'approve' | 'reject' | 'modify';
      plan?: Plan;
      comment?: string;
      /** The name the decider gave (not verified: whoever holds the token or link may give any). */
      approver?: string;
      /** How `approver` was established, or without one how the decision came (recorded either way). */
      approver_via?: NameSource;
      /**
       * The plan version the decider looked at: the decision is refused when the run now awaits
       * another (a rollback replaced it meanwhile), so nobody approves a plan they did not see.
       */
      plan_version?: number;
    }
  /** A new plan version (validated): a revision's result, or a rollback. */
  | { type: 'revise'; plan: Plan; reason: string; kind: PlanChangeKind; tokens?: TokenCount }
  /** With `error.code` {@link REVISION_DECLINED} the reviser chose to stop: the run ends `aborted`. */
  | { type: 'revision_failed'; error: ErrorInfo; tokens?: TokenCount }
  /** A user asks for a revision (`POST /replan`), or new information calls for one. */
  | { type: 'request_revision'; trigger: RevisionTrigger; reason: string }
  /** New information or the answer the run waits for (`POST /input`). */
  /** `step_id`: the input answers that step's question — refused unless the run waits on it. */
  /** `answered_by`: who sent it, `answered_by_via`: how that name was established (both recorded on InputReceived). */
  | {
      type: 'input';
      input: unknown;
      step_id?: string | undefined;
      answered_by?: string | undefined;
      answered_by_via?: NameSource | undefined;
      /**
       * The question this answers (its InputRequested's seq): refused `question_closed` unless the
       * run asks it still — a late second answer to a failed step's question must not answer the
       * question the step asks after the retry the first answer chose.
       */
      question_seq?: number | undefined;
    }
  /** The LLM judge's verdict on a step's output against its `expected_output`. */
  | {
      type: 'judged';
      step_id: string;
      ok: boolean;
      reason: string;
      tokens?: TokenCount;
      /** The judge could not answer: the output stands, but ReAct's exit criteria are not met. */
      unanswered?: boolean;
    }
  /** The approval webhook was tried once (recorded while the plan still awaits approval). */
  | {
      type: 'webhook_attempted';
      attempt: number;
      ok: boolean;
      status?: number;
      error?: string;
      next_attempt_at: number | null;
    }
  /**
   * A running step (`human.input`) waits for a person's answer, which will be its output; `schema`
   * (JSON Schema) is what the answer must fit.
   */
  | { type: 'await_input'; step_id: string; attempt: number; prompt: string; schema?: unknown };

export type Command =
  | {
      type: 'dispatch';
      step_id: string;
      attempt: number;
      action: string;
      fallback: boolean;
      mode: 'queue' | 'inline';
    }
  | { type: 'abort'; step_ids: string[]; reason: string }
  /** Plan the goal of a run created without a plan. */
  | { type: 'plan' }
  /** Produce a new plan version (the strategy says how) and answer with `revise` or `revision_failed`. */
  | { type: 'revise'; trigger: RevisionTrigger; reason: string; step_id?: string; strategy: string }
  | { type: 'approval_requested'; deadline_at: number | null }
  | { type: 'input_requested'; reason: string; step_id?: string }
  /** Ask the LLM judge whether a step's output meets its `expected_output`; answer with `judged`. */
  | { type: 'judge'; step_id: string; expected: string };

export type MachineDeps = {
  clock: Clock;
  ids: IdSource;
  results: ResultStore;
  /** Where an attempt is carried out: the queue, or inline in the run's object (default: placement.ts). */
  dispatch?: (state: RunState, step: PlanStep, action: string) => 'queue' | 'inline';
  /** A planner can revise plans (automatic revision triggers need one). */
  canRevise?: boolean;
  /** An LLM judges outputs against `expected_output` (else the structural check does). */
  judge?: boolean;
};

/** Why an input was refused, as data the HTTP layer maps to a 4xx. */
/** Why an input was refused; `details` as data for the API's error envelope. */
export type Refusal = { code: ErrorCode; message: string; details?: Record<string, unknown> };

export type HandleResult = { events: RunEvent[]; commands: Command[]; refused?: Refusal };

/** The error code of a revision the reviser declined to make (it chose to stop the run). */
export const REVISION_DECLINED = 'revision_declined';
