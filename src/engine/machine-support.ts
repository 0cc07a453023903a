/**
 * What the run machine needs besides its input switch: which steps a retry re-opens, how an answer to
 * `ask_user` continues the run, the `expected_output` check, and the command each event implies.
 * Pure functions over the state; they emit events, never change the state themselves.
 */
import type { ErrorInfo } from '../errors';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../plan/config';
import { isRecord, type Plan } from '../plan/model';
import { deepEqual } from '../plan/diff';
import { renderValue } from '../plan/jinja';
import { checkStateSchema } from '../plan/state-schema';
import { teaMetaOf } from '../plan/tea-meta';
import { revisionPossible } from './decide';
import type { EventDraft, EventPayloads, RunEvent, TokenCount } from './events';
import { isSettled } from './evolve';
import { unexpectedOutput } from './expected-output';
import { boundedError, outputLimitError } from './value-limits';
import type { Command, Refusal, StepOutcome } from './machine-types';
import type { RunState } from './state';

type Emit = (d: EventDraft) => void;

/**
 * Why a run cannot be retried at all, or null: only a failed, aborted or cancelled run can be, and never
 * one whose plan nobody approved (rejected, or cut off while it awaited approval).
 */
export function notRetryable(s: RunState): Refusal | null {
  if (s.status !== 'failed' && s.status !== 'aborted' && s.status !== 'cancelled') {
    return {
      code: 'run_not_retryable',
      message: `Run ${s.run_id} is ${s.status}; only failed, aborted or cancelled runs can be retried`,
    };
  }
  if (s.approval && s.approval.decision !== 'granted') {
    return {
      code: 'run_not_retryable',
      message:
        s.approval.decision === 'rejected'
          ? `Run ${s.run_id}'s plan was rejected, and a rejected plan is not run: start a new run`
          : `Run ${s.run_id} was ${s.status} while its plan awaited approval; a retry would run a plan nobody approved: start a new run`,
    };
  }
  return null;
}

/**
 * The steps a retry re-opens. The whole run: failed steps, and steps skipped because of a failure or a
 * stop. One step: that step and what it blocked — and every step the run's stop cut off, the step's
 * own dependencies included, so no step is left unrun behind a run that then says `completed`. A
 * step whose dependency failed is refused: that dependency is the one to retry.
 */
export function resumableSteps(s: RunState, stepId?: string): string[] | Refusal {
  const graph = s.graph!;
  if (stepId !== undefined) {
    const rt = s.steps.get(stepId);
    if (!rt) return { code: 'unknown_step', message: `Run ${s.run_id} has no step "${stepId}"` };
    if (rt.status !== 'failed' && rt.status !== 'skipped') {
      return {
        code: 'step_not_retryable',
        message: `Step "${stepId}" is ${rt.status}; only failed or skipped steps can be retried`,
      };
    }
    const failed = failedAncestor(s, stepId);
    if (failed !== null) {
      return {
        code: 'step_not_retryable',
        message: `Step "${stepId}" depends on "${failed}", which failed: retry "${failed}" (or the whole run)`,
      };
    }
  }
  const open = new Set<string>();
  const roots =
    stepId !== undefined
      ? [stepId, ...graph.ids.filter((id) => wasCutOff(s, id))]
      : graph.ids.filter((id) => isReopenable(s, id));
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

/** A failed (unhandled) step among `id`'s dependencies, transitively; null when none failed. */
function failedAncestor(s: RunState, id: string): string | null {
  const graph = s.graph!;
  const seen = new Set<string>();
  const stack = [...(graph.deps[graph.index.get(id)!] ?? [])];
  while (stack.length > 0) {
    const dep = stack.pop()!;
    if (seen.has(dep)) continue;
    seen.add(dep);
    const rt = s.steps.get(dep)!;
    if (rt.status === 'failed' && !rt.handled) return dep;
    stack.push(...(graph.deps[graph.index.get(dep)!] ?? []));
  }
  return null;
}

/** What an answer about a failed step asks for: its `action`, `retry` when it names none. */
export function failureAction(answer: unknown): string {
  return isRecord(answer) && typeof answer.action === 'string' ? answer.action : 'retry';
}

/** The refusal of an answer `{"action": "replan"}` where no planner could make the new version. */
export const NO_PLANNER_TO_REPLAN: Refusal = {
  code: 'planning_unavailable',
  message:
    'Answering {"action": "replan"} needs an LLM planner, and none is configured: answer ' +
    '{"action": "retry"}, {"action": "skip"} or {"action": "abort"}',
  details: { reason: 'no_planner' },
};

/**
 * The answer to `ask_user` about a failed step: `{"action": "skip" | "abort" | "replan" | "retry"}`
 * (retry when absent) — the rest of the answer is new information in the run state.
 */
export function answerFailure(s: RunState, stepId: string, answer: unknown, emit: Emit): void {
  const action = failureAction(answer);
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
    const ids = resumableSteps(s, stepId);
    if (Array.isArray(ids)) emit({ type: 'RunResumed', payload: { step_ids: ids } });
  }
}

/** How a ReAct run's exit-criteria check is worded to the judge (and recognised in its verdict). */
export const EXIT_CRITERIA = 'the goal’s exit criteria are met by this observation and those before it: ';

/**
 * The `expected_output` check after a success: an LLM judge when one is configured (the owner runs
 * the `judge` command and answers with `judged`), else the structural check. A mismatch is recorded
 * as a reflection and, when revision is allowed, asks for a revision of the rest of the plan.
 */
export function checkExpected(
  s: RunState,
  opts: { canRevise: boolean; judge: boolean },
  stepId: string,
  output: unknown,
  emit: Emit,
): void {
  const step = s.plan?.steps[s.graph!.index.get(stepId)!];
  // ReAct (seed 002): after each observation, the exit criteria are checked by the judge (without
  // one, the model decides at its next turn).
  if (s.plan?.strategy === 'react' && s.plan.success_criteria && step?.expected_output === undefined) {
    if (opts.judge)
      emit({
        type: 'ReflectionRequested',
        payload: { step_id: stepId, expected: `${EXIT_CRITERIA}${s.plan.success_criteria}` },
        references: { step_id: stepId },
      });
    return;
  }
  // Plan → Act → Reflect (seed 002): every step is reflected on against the plan's exit criteria.
  const par = s.plan?.strategy === 'par';
  const criteria = s.plan?.success_criteria ?? `progress toward the goal: ${s.goal}`;
  const expected =
    step?.expected_output ??
    (par ? `a result that keeps the plan on track for its exit criteria: ${criteria}` : undefined);
  if (!expected || !s.config.allow_revision) return;
  if (par && !opts.judge && step?.expected_output === undefined) {
    emit({
      type: 'ReflectionAdded',
      payload: {
        step_id: stepId,
        reflection: `Step "${stepId}" done; exit criteria: ${criteria} (no LLM judge configured to evaluate them)`,
      },
      references: { step_id: stepId },
    });
    return;
  }
  if (opts.judge) {
    emit({
      type: 'ReflectionRequested',
      payload: { step_id: stepId, expected },
      references: { step_id: stepId },
    });
    return;
  }
  const why = unexpectedOutput(expected, output);
  if (why) reportUnexpected(s, opts.canRevise, stepId, why, emit);
}

/** An output that does not meet its `expected_output`: a reflection, then a revision when allowed. */
export function reportUnexpected(
  s: RunState,
  canRevise: boolean,
  stepId: string,
  why: string,
  emit: Emit,
  tokens?: TokenCount,
): void {
  emit({
    type: 'ReflectionAdded',
    payload: {
      step_id: stepId,
      reflection: `Unexpected result from "${stepId}": ${why}`,
      ...(tokens ? { tokens } : {}),
    },
    references: { step_id: stepId },
  });
  // While the plan streams in, the revision is asked for once it is whole.
  if (!s.revising && revisionPossible(s, { canRevise })) {
    emit({
      type: 'RevisionRequested',
      payload: {
        trigger: 'unexpected_result',
        reason: `step "${stepId}": ${why}`,
        step_id: stepId,
        strategy: s.config.revision_strategy,
        ...(s.streaming ? { deferred: true } : {}),
      },
      references: { step_id: stepId },
    });
  }
}

/**
 * The `ToolReturned` payload for an attempt's outcome. An output over the run's `max_output_bytes`
 * is recorded as the attempt's failure (`output_too_large`), never stored. A success whose step merges its result into
 * state (`output_path: "state"`) but that is no plain object cannot be merged: it is recorded as
 * the attempt's failure (`bad_output`, not retryable — the fallback and the failure strategy
 * still apply), so the log, the live state and replay all agree on it.
 */
export function returnedPayload(
  s: RunState,
  step_id: string,
  attempt: number,
  o: StepOutcome,
): EventPayloads['ToolReturned'] {
  const { latency_ms, tokens } = o;
  if (o.success) o = { ...o, output: teaResult(s, step_id, o.output) };
  const error = o.success
    ? (outputLimitError(step_id, o.output, s.config.max_output_bytes ?? DEFAULT_MAX_OUTPUT_BYTES) ??
      mergeError(s, step_id, o.output))
    : o.error;
  if (o.success && error === null) {
    const schema_findings = schemaFindings(s, step_id, o.output);
    const payload = {
      step_id,
      attempt,
      success: true,
      output: o.output,
      latency_ms,
      tokens,
      cached: o.cached,
    };
    return schema_findings ? { ...payload, schema_findings } : payload;
  }
  return { step_id, attempt, success: false, error: boundedError(error!), latency_ms, tokens };
}

/**
 * A TEA node's result as TEA stores it: through its `output:` mapping (each template rendered with
 * `result`), else — when it merges into state — a result that is no dict becomes `{result: …}`.
 */
function teaResult(s: RunState, stepId: string, output: unknown): unknown {
  const meta = teaMetaOf(s.plan);
  if (!meta) return output;
  const mapping = meta.outputs[stepId];
  if (mapping) {
    const r = renderValue(mapping, { result: output, variables: meta.variables, settings: meta.settings });
    return r.ok ? r.value : { error: `output mapping failed at ${r.path}: ${r.message}` };
  }
  const i = s.graph?.index.get(stepId);
  const merges = i !== undefined && s.graph!.writes[i]?.success?.length === 0;
  return merges && !isRecord(output) ? { result: output ?? null } : output;
}

/**
 * What a TEA node's result does not fit in `state_schema`, or null. TEA's own examples declare an
 * `llm.call` result `str` (it is a dict), so findings are recorded, not fatal; the input is held to it.
 */
function schemaFindings(s: RunState, stepId: string, output: unknown): string[] | null {
  const schema = teaMetaOf(s.plan)?.state_schema;
  const i = s.graph?.index.get(stepId);
  const path = i === undefined ? undefined : s.graph!.writes[i]?.success;
  if (!schema || !path || path.length > 1) return null;
  const written = path.length === 0 ? (isRecord(output) ? output : {}) : { [String(path[0])]: output };
  const findings = checkStateSchema(schema, written);
  return findings.length === 0 ? null : findings.map((f) => `Node "${stepId}": ${f.message}`);
}

/** Why a step's output cannot be merged into state, or null (it can, or the step does not merge). */
function mergeError(s: RunState, stepId: string, output: unknown): ErrorInfo | null {
  const i = s.graph?.index.get(stepId);
  if (i === undefined || s.graph!.writes[i]?.success?.length !== 0 || isRecord(output)) return null;
  return {
    code: 'bad_output',
    message: `output_path "state" merges an object's keys into state; step "${stepId}" returned ${kindOf(output)}`,
    retryable: false,
  };
}

function kindOf(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'an array';
  const t = typeof v;
  return t === 'object' ? 'an object' : `a ${t}`;
}

const REOPENED_SKIPS = new Set(['dependency_failed', 'failure_strategy', 'run_terminated', 'cancelled']);
const STOP_SKIPS = new Set(['run_terminated', 'cancelled']);

/** Failed steps, steps skipped because of a failure or a stop, and steps that never got to run. */
function isReopenable(s: RunState, id: string): boolean {
  const rt = s.steps.get(id)!;
  if (rt.status === 'failed') return !rt.handled;
  if (rt.status === 'skipped') return rt.skip_reason !== null && REOPENED_SKIPS.has(rt.skip_reason);
  return rt.status !== 'completed' && rt.status !== 'running';
}

/** Steps the run's end cut off: skipped because it stopped, or never settled. */
function wasCutOff(s: RunState, id: string): boolean {
  const rt = s.steps.get(id)!;
  if (rt.status === 'skipped') return rt.skip_reason !== null && STOP_SKIPS.has(rt.skip_reason);
  return rt.status !== 'completed' && rt.status !== 'running' && rt.status !== 'failed';
}

export function commandFor(event: RunEvent): Command | null {
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
  if (event.event_type === 'StepRedispatched') {
    const { step_id, attempt, action, fallback, dispatch } = event.payload;
    return { type: 'dispatch', step_id, attempt, action, fallback, mode: dispatch };
  }
  if (event.event_type === 'RunTerminated' && event.payload.status === 'cancelled') {
    return { type: 'abort', step_ids: [], reason: event.payload.reason };
  }
  // A deferred request is only noted: it is asked again, and carried out, once the plan is whole.
  if (event.event_type === 'RevisionRequested' && !event.payload.deferred) {
    const { trigger, reason, step_id, strategy } = event.payload;
    return step_id === undefined
      ? { type: 'revise', trigger, reason, strategy }
      : { type: 'revise', trigger, reason, step_id, strategy };
  }
  if (event.event_type === 'ReflectionRequested') {
    return { type: 'judge', step_id: event.payload.step_id, expected: event.payload.expected };
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
export function changedSteps(before: Plan | null, after: Plan): string[] {
  const old = new Map(before?.steps.map((st) => [st.id, JSON.stringify(st)]) ?? []);
  return after.steps.filter((st) => old.get(st.id) !== JSON.stringify(st)).map((st) => st.id);
}

/**
 * Whether two versions of a plan say the same thing: the same steps in the same order, and the same
 * goal, strategy, exit criteria and metadata (a TEA node's `with:` lives there). Their id, version and
 * creation time do not count.
 */
export function samePlanContent(a: Plan, b: Plan): boolean {
  const content = ({ id: _id, version: _v, created_at: _at, ...rest }: Plan) => rest;
  return deepEqual(content(a), content(b));
}

export function notNow(s: RunState, what: string, needed: string): Refusal {
  return {
    code: 'conflict',
    message: `Run ${s.run_id} is ${s.status}; it can ${what} only while ${needed}`,
    // `reason` says which rule refused; the statuses say what to wait for.
    details: { reason: 'run_status', status: s.status, needed },
  };
}

/**
 * Why an answer to `stepId` cannot be taken, or null when the run waits on that step (a person's
 * question, or `ask_user` about its failure). Two people answering at once: the second is told the
 * question was answered, instead of having the answer taken as new information.
 */
export function notAwaited(s: RunState, stepId: string): Refusal | null {
  const rt = s.steps.get(stepId);
  if (!rt) return { code: 'unknown_step', message: `Run ${s.run_id} has no step "${stepId}"` };
  const waiting = s.status === 'awaiting_input' && s.awaiting?.step_id === stepId;
  if (waiting && (rt.status === 'running' || rt.status === 'failed')) return null;
  const now =
    s.awaiting?.step_id !== undefined && s.status === 'awaiting_input'
      ? `; the run waits on step "${s.awaiting.step_id}"`
      : '';
  return {
    code: 'conflict',
    message: `Step "${stepId}" is not waiting for an answer (it was answered already, or has not asked)${now}. Send the input without step_id to give the run new information`,
    details: { reason: 'input_not_awaited', step_id: stepId, status: s.status },
  };
}
