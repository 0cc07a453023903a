/**
 * The run machine: inputs in, events and commands out. Each input becomes zero or more events
 * (validated against the state first, so duplicates and stale results are ignored), each event is
 * folded into the state with `evolve`, and `decideNext` is asked what follows until it has nothing
 * more to say. The owner (Durable Object or in-process runner) persists the events and carries the
 * commands out; it never changes the state itself.
 */
import type { ErrorInfo } from '../errors';
import type { RunConfig } from '../plan/config';
import type { Estimates } from '../plan/estimates';
import {
  isRecord,
  TERMINAL_RUN_STATUSES,
  type Clock,
  type IdSource,
  type Plan,
  type PlanStep,
} from '../plan/model';
import { decideNext, revisionAllowed } from './decide';
import { unexpectedOutput } from './expected-output';
import type {
  EventDraft,
  EventReferences,
  PlanChangeKind,
  RevisionTrigger,
  RunEvent,
  TokenCount,
} from './events';
import { evolve, isSettled } from './evolve';
import type { ResultStore, RunState } from './state';

export type StepOutcome =
  | { success: true; output: unknown; latency_ms: number; tokens?: TokenCount; cached?: boolean }
  | { success: false; error: ErrorInfo; latency_ms: number; tokens?: TokenCount };

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
    }
  | { type: 'result'; step_id: string; attempt: number; outcome: StepOutcome }
  | { type: 'tick' }
  | { type: 'cancel'; reason?: string }
  | { type: 'resume'; step_id?: string }
  /** The planner delivered the plan of a run created from a goal (already validated). */
  | { type: 'planned'; plan: Plan; estimates: Estimates | null; tokens?: TokenCount }
  | { type: 'planning_failed'; error: ErrorInfo }
  /** An approver's decision; a `modify` carries the edited plan, validated, with its new version. */
  | { type: 'approval'; decision: 'approve' | 'reject' | 'modify'; plan?: Plan; comment?: string }
  /** A new plan version (validated): a revision's result, or a rollback. */
  | { type: 'revise'; plan: Plan; reason: string; kind: PlanChangeKind; tokens?: TokenCount }
  | { type: 'revision_failed'; error: ErrorInfo }
  /** A user asks for a revision (`POST /replan`), or new information calls for one. */
  | { type: 'request_revision'; trigger: RevisionTrigger; reason: string }
  /** New information or the answer the run waits for (`POST /input`). */
  | { type: 'input'; input: unknown }
  /** A running step (`human.input`) waits for a person's answer, which will be its output. */
  | { type: 'await_input'; step_id: string; attempt: number; prompt: string };

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
  | { type: 'input_requested'; reason: string; step_id?: string };

export type MachineDeps = {
  clock: Clock;
  ids: IdSource;
  results: ResultStore;
  dispatch?: (state: RunState, step: PlanStep) => 'queue' | 'inline';
  /** A planner can revise plans (automatic revision triggers need one). */
  canRevise?: boolean;
};

/** Why an input was refused, as data the HTTP layer maps to a 4xx. */
export type Refusal = { code: string; message: string };

export type HandleResult = { events: RunEvent[]; commands: Command[]; refused?: Refusal };

export class RunMachine {
  constructor(
    readonly state: RunState,
    private readonly deps: MachineDeps,
  ) {}

  handle(input: MachineInput): HandleResult {
    const now = this.deps.clock.now().getTime();
    const out: HandleResult = { events: [], commands: [] };
    const emit = (d: EventDraft) => this.#append(d, out);
    const refused = this.#accept(input, emit);
    if (refused) return { ...out, refused };
    if (input.type === 'create' && !input.plan) out.commands.push({ type: 'plan' });
    const ctx = {
      now,
      results: this.deps.results,
      dispatch: this.deps.dispatch ?? defaultDispatch,
      canRevise: this.deps.canRevise ?? false,
    };
    for (let d = decideNext(this.state, ctx); d; d = decideNext(this.state, ctx)) emit(d);
    return out;
  }

  /** The earliest time the run needs waking (a retry backoff or an attempt deadline), or null. */
  nextWakeAt(): number | null {
    const a = this.state.approval;
    let min: number | null =
      this.state.status === 'awaiting_approval' && a?.decision === 'pending' ? a.deadline_at : null;
    for (const at of this.state.timers.values()) if (min === null || at < min) min = at;
    return min;
  }

  /** Turns an input into its events, or says why it does not apply. */
  #accept(input: MachineInput, emit: (d: EventDraft) => void): Refusal | undefined {
    const s = this.state;
    switch (input.type) {
      case 'create': {
        if (s.seq > 0) return { code: 'run_exists', message: `Run ${s.run_id} already exists` };
        const { run_id, goal, config, plan, estimates } = input;
        emit({
          type: 'RunCreated',
          payload: { run_id, goal, config, input: input.input, state: input.state },
        });
        if (plan) this.#author(plan, estimates, emit);
        return;
      }
      case 'planned':
        if (s.status !== 'planning' || s.plan) return notNow(s, 'receive a plan', 'planning');
        this.#author(input.plan, input.estimates, emit, input.tokens);
        return;
      case 'planning_failed':
        if (s.status !== 'planning') return notNow(s, 'fail planning', 'planning');
        emit({
          type: 'RunTerminated',
          payload: { status: 'failed', reason: 'planning_failed', error: input.error },
        });
        return;
      case 'approval': {
        if (s.status !== 'awaiting_approval' || s.approval?.decision !== 'pending') {
          return notNow(s, 'take an approval decision', 'awaiting_approval');
        }
        const by = 'approver';
        const comment = input.comment;
        if (input.decision === 'reject') {
          emit({ type: 'ApprovalRejected', payload: { comment, by } });
          return;
        }
        if (input.decision === 'modify' && input.plan) {
          emit({
            type: 'PlanUpdated',
            payload: {
              plan: input.plan,
              reason: comment ?? 'modified by the approver',
              kind: 'approval_edit',
              changed_steps: changedSteps(s.plan, input.plan),
            },
          });
        }
        emit({ type: 'ApprovalGranted', payload: { comment, by } });
        return;
      }
      case 'revise': {
        // A finished run can still be rolled back (a retry then runs what the new version leaves open).
        const finished = TERMINAL_RUN_STATUSES.has(s.status);
        if (!s.plan || s.status === 'planning' || (finished && input.kind !== 'rollback')) {
          return notNow(s, 'take a new plan version', 'running');
        }
        const { plan, reason, kind, tokens } = input;
        const changed_steps = changedSteps(s.plan, plan);
        emit({
          type: 'PlanUpdated',
          payload: tokens
            ? { plan, reason, kind, changed_steps, tokens }
            : { plan, reason, kind, changed_steps },
        });
        return;
      }
      case 'revision_failed':
        if (!s.revising) return;
        emit({
          type: 'RunTerminated',
          payload: { status: 'failed', reason: 'revision_failed', error: input.error },
        });
        return;
      case 'request_revision': {
        if (s.status !== 'running' && s.status !== 'awaiting_input')
          return notNow(s, 'revise its plan', 'running');
        if (s.revising)
          return { code: 'revision_in_progress', message: `Run ${s.run_id} is already being revised` };
        if (s.revision_count >= s.config.max_revisions) {
          return {
            code: 'max_revisions',
            message: `Max replans exceeded (${s.config.max_revisions}) for run ${s.run_id}`,
          };
        }
        emit({
          type: 'RevisionRequested',
          payload: { trigger: input.trigger, reason: input.reason, strategy: 'replan_remaining' },
        });
        return;
      }
      case 'await_input': {
        const rt = s.steps.get(input.step_id);
        if (!rt || rt.status !== 'running' || rt.attempt !== input.attempt || s.status !== 'running') return;
        const { step_id, prompt } = input;
        emit({
          type: 'InputRequested',
          payload: { reason: prompt, step_id, prompt },
          references: { step_id },
        });
        return;
      }
      case 'input': {
        if (TERMINAL_RUN_STATUSES.has(s.status)) return notNow(s, 'take input', 'running');
        const waitingOn = s.awaiting?.step_id;
        const asking = waitingOn !== undefined ? s.steps.get(waitingOn) : undefined;
        if (waitingOn !== undefined && asking?.status === 'running') {
          // The answer to a step waiting for a person is that step's output.
          emit({
            type: 'InputReceived',
            payload: { input: input.input, step_id: waitingOn },
            references: { step_id: waitingOn },
          });
          emit({
            type: 'ToolReturned',
            payload: {
              step_id: waitingOn,
              attempt: asking.attempt,
              success: true,
              output: input.input ?? null,
              latency_ms: 0,
            },
            references: { step_id: waitingOn },
          });
          return;
        }
        emit({ type: 'InputReceived', payload: { input: input.input } });
        if (waitingOn !== undefined && s.steps.get(waitingOn)?.status === 'failed') {
          this.#answerFailure(waitingOn, input.input, emit);
        } else if (s.status === 'running' && !s.revising && revisionAllowed(s, this.#revisable())) {
          // New information while running: the rest of the plan is revised in its light.
          emit({
            type: 'RevisionRequested',
            payload: {
              trigger: 'new_information',
              reason: 'new information arrived (POST /input)',
              strategy: s.config.revision_strategy,
            },
          });
        }
        return;
      }
      case 'invoked': {
        const rt = s.steps.get(input.step_id);
        if (!rt || rt.status !== 'running' || rt.attempt !== input.attempt || rt.invoked) return;
        const { step_id, attempt, tool, parameters, idempotency_key, deadline_at } = input;
        emit({
          type: 'ToolInvoked',
          payload:
            deadline_at === undefined
              ? { step_id, attempt, tool, parameters, idempotency_key }
              : { step_id, attempt, tool, parameters, idempotency_key, deadline_at },
          references: { step_id, tool_version: input.tool_version },
        });
        return;
      }
      case 'result': {
        const rt = s.steps.get(input.step_id);
        // At most one result per attempt: a duplicate, late or stale report changes nothing.
        if (
          !rt ||
          rt.status !== 'running' ||
          rt.attempt !== input.attempt ||
          s.needs_decision.has(input.step_id)
        )
          return;
        const o = input.outcome;
        emit({
          type: 'ToolReturned',
          payload: o.success
            ? {
                step_id: input.step_id,
                attempt: input.attempt,
                success: true,
                output: o.output,
                latency_ms: o.latency_ms,
                tokens: o.tokens,
                cached: o.cached,
              }
            : {
                step_id: input.step_id,
                attempt: input.attempt,
                success: false,
                error: o.error,
                latency_ms: o.latency_ms,
                tokens: o.tokens,
              },
          references: { step_id: input.step_id },
        });
        if (o.success) this.#checkExpected(input.step_id, o.output, emit);
        return;
      }
      case 'tick':
        return;
      case 'cancel': {
        if (TERMINAL_RUN_STATUSES.has(s.status)) {
          return {
            code: 'run_finished',
            message: `Run ${s.run_id} is already ${s.status}; there is nothing to cancel`,
          };
        }
        emit({
          type: 'RunTerminated',
          payload: { status: 'cancelled', reason: input.reason ?? 'cancelled by request' },
        });
        return;
      }
      case 'resume': {
        if (s.status !== 'failed' && s.status !== 'aborted' && s.status !== 'cancelled') {
          return {
            code: 'run_not_retryable',
            message: `Run ${s.run_id} is ${s.status}; only failed, aborted or cancelled runs can be retried`,
          };
        }
        const ids = this.#resumable(input.step_id);
        if (typeof ids === 'object' && 'code' in ids) return ids;
        emit({ type: 'RunResumed', payload: { step_ids: ids } });
        return;
      }
    }
  }

  /**
   * The answer to `ask_user` about a failed step: `{"action": "skip" | "abort" | "replan" | "retry"}`
   * (retry when absent) — the rest of the answer is new information in the run state.
   */
  #answerFailure(stepId: string, answer: unknown, emit: (d: EventDraft) => void): void {
    const action = isRecord(answer) && typeof answer.action === 'string' ? answer.action : 'retry';
    if (action === 'skip') {
      emit({
        type: 'StepSkipped',
        payload: { step_id: stepId, reason: 'failure_strategy', detail: 'skipped at the user’s request' },
        references: { step_id: stepId },
      });
    } else if (action === 'abort') {
      emit({
        type: 'RunTerminated',
        payload: {
          status: 'aborted',
          reason: 'user_abort',
          error: {
            code: 'aborted',
            message: `Stopped at the user’s request after step "${stepId}" failed`,
            retryable: false,
          },
        },
      });
    } else if (action === 'replan') {
      emit({
        type: 'RevisionRequested',
        payload: {
          trigger: 'new_information',
          reason: `user asked to replan after step "${stepId}" failed`,
          step_id: stepId,
          strategy: 'replan_remaining',
        },
        references: { step_id: stepId },
      });
    } else {
      const ids = this.#resumable(stepId);
      if (Array.isArray(ids)) emit({ type: 'RunResumed', payload: { step_ids: ids } });
    }
  }

  #revisable(): { canRevise: boolean } {
    return { canRevise: this.deps.canRevise ?? false };
  }

  /**
   * The `expected_output` check after a success: a mismatch is recorded as a reflection and, when
   * revision is allowed, asks for a revision of the rest of the plan.
   */
  #checkExpected(stepId: string, output: unknown, emit: (d: EventDraft) => void): void {
    const s = this.state;
    const expected = s.plan?.steps[s.graph!.index.get(stepId)!]?.expected_output;
    if (!expected || !s.config.allow_revision) return;
    const why = unexpectedOutput(expected, output);
    if (!why) return;
    emit({
      type: 'ReflectionAdded',
      payload: { step_id: stepId, reflection: `Unexpected result from "${stepId}": ${why}` },
      references: { step_id: stepId },
    });
    if (!s.revising && revisionAllowed(s, this.#revisable())) {
      emit({
        type: 'RevisionRequested',
        payload: {
          trigger: 'unexpected_result',
          reason: `step "${stepId}": ${why}`,
          step_id: stepId,
          strategy: s.config.revision_strategy,
        },
        references: { step_id: stepId },
      });
    }
  }

  /** Records a plan, then either asks for approval or starts. */
  #author(plan: Plan, estimates: Estimates | null, emit: (d: EventDraft) => void, tokens?: TokenCount): void {
    emit({ type: 'PlanAuthored', payload: tokens ? { plan, tokens } : { plan } });
    emit({ type: 'PlanValidated', payload: { valid: true, estimates } });
    const { require_plan_approval, approval } = this.state.config;
    if (require_plan_approval) {
      const timeout = approval?.timeout_s;
      const deadline_at = timeout ? this.deps.clock.now().getTime() + timeout * 1000 : null;
      emit({ type: 'ApprovalRequested', payload: { deadline_at, plan_version: plan.version } });
    } else {
      emit({ type: 'RunStarted', payload: {} });
    }
  }

  /** The steps a retry re-opens: failed and skipped steps (or one failed step and what it blocked). */
  #resumable(stepId?: string): string[] | Refusal {
    const s = this.state;
    if (stepId !== undefined) {
      const rt = s.steps.get(stepId);
      if (!rt) return { code: 'unknown_step', message: `Run ${s.run_id} has no step "${stepId}"` };
      if (rt.status !== 'failed' && rt.status !== 'skipped') {
        return {
          code: 'step_not_retryable',
          message: `Step "${stepId}" is ${rt.status}; only failed or skipped steps can be retried`,
        };
      }
    }
    const graph = s.graph!;
    const open = new Set<string>();
    const roots = stepId !== undefined ? [stepId] : graph.ids.filter((id) => isReopenable(s, id));
    const stack = [...roots];
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (open.has(id)) continue;
      open.add(id);
      for (const dep of graph.dependents[graph.index.get(id)!] ?? []) {
        const rt = s.steps.get(dep)!;
        if (rt.status === 'skipped' || rt.status === 'failed' || !isSettled(rt)) stack.push(dep);
      }
    }
    // Never re-open completed work, and keep plan order so replay reads naturally.
    return graph.ids.filter((id) => open.has(id) && s.steps.get(id)!.status !== 'completed');
  }

  #append(d: EventDraft, out: HandleResult): void {
    const s = this.state;
    const references: EventReferences = {
      plan_id: s.plan?.id ?? null,
      plan_version: s.plan?.version ?? null,
      ...d.references,
    };
    if (d.type === 'PlanAuthored' || d.type === 'PlanUpdated') {
      references.plan_id = d.payload.plan.id;
      references.plan_version = d.payload.plan.version;
    }
    const event = {
      event_id: this.deps.ids.uuid(),
      seq: s.seq + 1,
      event_type: d.type,
      timestamp: this.deps.clock.now().toISOString(),
      actor: `run:${s.run_id}`,
      references,
      payload: d.payload,
    } as RunEvent;
    evolve(s, event, this.deps.results);
    out.events.push(event);
    const command = commandFor(event);
    if (command) out.commands.push(command);
  }
}

const REOPENED_SKIPS = new Set(['dependency_failed', 'failure_strategy', 'run_terminated']);

/** Failed steps, steps skipped because of a failure or a stop, and steps that never got to run. */
function isReopenable(s: RunState, id: string): boolean {
  const rt = s.steps.get(id)!;
  if (rt.status === 'failed') return !rt.handled;
  if (rt.status === 'skipped') return rt.skip_reason !== null && REOPENED_SKIPS.has(rt.skip_reason);
  return rt.status !== 'completed' && rt.status !== 'running';
}

function commandFor(event: RunEvent): Command | null {
  if (event.event_type === 'StepScheduled') {
    const p = event.payload;
    return {
      type: 'dispatch',
      step_id: p.step_id,
      attempt: p.attempt,
      action: p.action,
      fallback: p.fallback,
      mode: p.dispatch,
    };
  }
  if (event.event_type === 'RunTerminated' && event.payload.status === 'cancelled') {
    return { type: 'abort', step_ids: [], reason: event.payload.reason };
  }
  if (event.event_type === 'RevisionRequested') {
    const { trigger, reason, step_id, strategy } = event.payload;
    return step_id === undefined
      ? { type: 'revise', trigger, reason, strategy }
      : { type: 'revise', trigger, reason, step_id, strategy };
  }
  if (event.event_type === 'ApprovalRequested')
    return { type: 'approval_requested', deadline_at: event.payload.deadline_at };
  if (event.event_type === 'InputRequested') {
    const { reason, step_id } = event.payload;
    return step_id === undefined
      ? { type: 'input_requested', reason }
      : { type: 'input_requested', reason, step_id };
  }
  return null;
}

/** The ids of steps added or changed from one plan to the next. */
function changedSteps(before: Plan | null, after: Plan): string[] {
  const old = new Map(before?.steps.map((st) => [st.id, JSON.stringify(st)]) ?? []);
  return after.steps.filter((st) => old.get(st.id) !== JSON.stringify(st)).map((st) => st.id);
}

function notNow(s: RunState, what: string, needed: string): Refusal {
  return { code: 'conflict', message: `Run ${s.run_id} is ${s.status}; it can ${what} only while ${needed}` };
}

function defaultDispatch(state: RunState): 'queue' | 'inline' {
  return state.config.execution_mode === 'sequential' ? 'inline' : 'queue';
}
