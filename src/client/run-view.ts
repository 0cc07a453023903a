/**
 * A run as a person follows it, folded from its events: the steps in plan order with status, every
 * attempt (tool, resolved parameters, idempotency key, start, end, latency, outcome), the critical
 * path, what the run waits for, and how it ended. Pure: the CLI's live view and the dashboard draw
 * from the same fold, and it is tested without either.
 * @example
 * const view = emptyView(runId);
 * for await (const e of client.watch(runId)) applyEvent(view, e);
 */
import type { EventOf, RunEvent } from './types';
import type { RunView, StepView } from './run-view-types';
import { advanceRunClock, startRunClock } from './run-time';
import { waitedAsAsked } from './retry-after';
import { EdgeplanApiError } from './http';
import { setPlan } from './planned-steps';
import { keepReplaced, lastReplaced, stepChanges, stepsAsPlan } from './run-view-revisions';

export type { AttemptView, StepRound, StepView, ReplacedStep, RunView } from './run-view-types';

export function emptyView(runId: string): RunView {
  return {
    run_id: runId,
    goal: '',
    status: 'planning',
    plan_version: null,
    steps: [],
    replaced: [],
    critical_path: [],
    critical_path_ms: null,
    started_at: null,
    ended_at: null,
    final_output: undefined,
    error: null,
    cancel_reason: null,
    limit_reached: null,
    waiting: null,
    approval: null,
    unapproved: false,
    notices: [],
    last_seq: 0,
    clock: startRunClock(),
    retries: 0,
    retry_failed_steps: null,
    versions: [],
  };
}

/**
 * Step id → its view, for each `view.steps` array (a new plan makes a new array, so a new index): the
 * fold looks a step up for every event, and a scan of the plan each time made a 100,000-step run's
 * 300,000 events cost minutes to fold (`edgeplan show` took 211 s).
 */
const indexes = new WeakMap<readonly StepView[], Map<string, StepView>>();

function step(view: RunView, id: string): StepView | undefined {
  let index = indexes.get(view.steps);
  // Built again should the array have grown or shrunk since (a caller's own push).
  if (!index || index.size !== view.steps.length) {
    index = new Map(view.steps.map((s) => [s.id, s]));
    indexes.set(view.steps, index);
  }
  return index.get(id);
}

/** A decider's name and how it was established, the keys an event leaves out left out. */
function deciderOf(p: { approver?: string | undefined; approver_via?: string | undefined }) {
  return {
    ...(p.approver !== undefined ? { approver: p.approver } : {}),
    ...(p.approver_via !== undefined ? { approver_via: p.approver_via } : {}),
  };
}

/**
 * The view after one more event (mutated in place and returned). An event without the fields its type
 * has (a server of another version, or not edgeplan) is `invalid_response` naming it, not a TypeError.
 */
export function applyEvent(view: RunView, e: RunEvent): RunView {
  try {
    return applyReadEvent(view, e);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    throw new EdgeplanApiError(
      0,
      'invalid_response',
      `event ${e.seq} (${e.event_type}) lacks what a ${e.event_type} has (${err.message}): a server of another version, or not edgeplan`,
    );
  }
}

function applyReadEvent(view: RunView, e: RunEvent): RunView {
  view.last_seq = e.seq;
  advanceRunClock(view.clock, e);
  const at = Date.parse(e.timestamp);
  switch (e.event_type) {
    case 'RunCreated':
      view.goal = e.payload.goal;
      view.retry_failed_steps = e.payload.config.retry_failed_steps ?? null;
      break;
    case 'PlanAuthored':
      setPlan(view, e.payload.plan.steps, e.payload.plan.version ?? e.references.plan_version);
      view.versions.push({
        version: view.plan_version,
        kind: 'authored',
        reason: 'first plan',
        at,
        tokens: e.payload.tokens,
      });
      break;
    case 'PlanUpdated': {
      const version = e.payload.plan.version ?? e.references.plan_version;
      const changes = stepChanges(view.steps, e.payload.plan.steps, e.payload.changed_steps);
      keepReplaced(
        view,
        e.payload.plan.steps,
        {
          version,
          kind: e.payload.kind,
          reason: e.payload.reason,
        },
        e.payload.changed_steps,
      );
      setPlan(view, e.payload.plan.steps, version);
      const { approver, approver_via } = e.payload;
      view.versions.push({
        version: view.plan_version,
        kind: e.payload.kind,
        reason: e.payload.reason,
        at,
        tokens: e.payload.tokens,
        changes,
        ...(approver !== undefined || approver_via !== undefined
          ? { edited_by: deciderOf({ approver, approver_via }) }
          : {}),
      });
      break;
    }
    case 'StepStreamed':
      if (!step(view, e.payload.step.id))
        setPlan(view, [...stepsAsPlan(view), e.payload.step], view.plan_version);
      break;
    case 'PlanValidated':
      view.critical_path = e.payload.estimates?.critical_path.steps ?? [];
      view.critical_path_ms = e.payload.estimates?.critical_path.duration_ms ?? null;
      break;
    case 'RunStarted':
      view.status = 'running';
      view.started_at ??= at;
      view.waiting = null;
      break;
    case 'ApprovalRequested':
      view.status = 'awaiting_approval';
      view.waiting = { kind: 'approval', plan_version: e.payload.plan_version };
      view.unapproved = true;
      break;
    case 'ApprovalGranted':
    case 'ApprovalRejected': {
      const asked = view.waiting?.kind === 'approval' ? view.waiting.plan_version : undefined;
      // A second approval is a revision's (`approval.revisions: "ask"`): the run had run before it.
      const revision = view.approval !== null;
      view.waiting = null;
      view.unapproved = e.event_type === 'ApprovalRejected';
      view.approval = {
        decision: e.event_type === 'ApprovalRejected' ? 'rejected' : 'granted',
        by: e.payload.by,
        comment: e.payload.comment ?? null,
        ...(e.payload.approver !== undefined ? { approver: e.payload.approver } : {}),
        ...(e.payload.approver_via !== undefined ? { approver_via: e.payload.approver_via } : {}),
        ...(asked !== undefined ? { plan_version: asked } : {}),
        ...(revision ? { revision } : {}),
      };
      // An edit recorded before its decider was kept with it: the decision that follows it made it.
      const edit = view.versions.at(-1);
      if (e.event_type === 'ApprovalGranted' && edit?.kind === 'approval_edit' && !edit.edited_by)
        edit.edited_by = deciderOf(e.payload);
      // The run goes on (a revision's steps may wait on ones that are still running).
      if (e.event_type === 'ApprovalGranted' && view.status === 'awaiting_approval') view.status = 'running';
      break;
    }
    case 'InputRequested':
      view.status = 'awaiting_input';
      view.waiting = {
        kind: 'input',
        prompt: e.payload.prompt ?? e.payload.reason,
        step_id: e.payload.step_id,
        ...(e.payload.schema === undefined ? {} : { schema: e.payload.schema }),
        question_seq: e.seq,
        // When it is due and what happens then (a human.input step's; none on older events).
        ...(e.payload.deadline === undefined
          ? {}
          : {
              deadline: e.payload.deadline,
              if_unanswered: e.payload.if_unanswered,
              retries_left: e.payload.retries_left,
            }),
      };
      break;
    case 'InputReceived': {
      const asked = e.payload.step_id === undefined ? undefined : step(view, e.payload.step_id);
      // This answer's: a step asked again (a retry) is not shown with an earlier answerer.
      if (asked) {
        asked.answered_by = e.payload.answered_by;
        asked.answered_by_via = e.payload.answered_by_via;
      }
      view.waiting = null;
      if (view.status === 'awaiting_input') view.status = 'running';
      break;
    }
    case 'StepScheduled': {
      // A run approved before it starts may show its first step before anything else says so.
      view.started_at ??= at;
      if (view.status === 'awaiting_approval' || view.status === 'planning') view.status = 'running';
      const s = step(view, e.payload.step_id);
      if (s) s.fallback = e.payload.fallback;
      break;
    }
    case 'ToolInvoked': {
      const s = step(view, e.payload.step_id) ?? lastReplaced(view, e.payload.step_id);
      if (!s) break;
      Object.assign(s, { status: 'running', attempts: e.payload.attempt, started_at: at });
      delete s.next_attempt;
      if (s.round && s.round.first_attempt === null) s.round.first_attempt = e.payload.attempt;
      s.history.push({
        attempt: e.payload.attempt,
        tool: e.payload.tool,
        parameters: e.payload.parameters,
        idempotency_key: e.payload.idempotency_key,
        started_at: at,
        ended_at: null,
        latency_ms: null,
        success: null,
        error: null,
        cached: false,
        after_run_ended: false,
        plan_version: e.references.plan_version,
        fallback: s.fallback,
      });
      break;
    }
    case 'ToolReturned':
      returned(view, e);
      break;
    case 'StepRedispatched': {
      const { code, message } = e.payload.error;
      if (!view.notices.some((n) => n.code === code))
        view.notices.push({ code, message, step_id: e.payload.step_id });
      break;
    }
    case 'StepRetried': {
      const s = step(view, e.payload.step_id);
      if (!s) break;
      Object.assign(s, { status: 'retrying', error: e.payload.error.message });
      s.next_attempt = { at: e.payload.retry_at, retry_after: waitedAsAsked(e.payload) };
      break;
    }
    case 'StepFailed': {
      const s = step(view, e.payload.step_id);
      if (s) Object.assign(s, { status: 'failed', error: e.payload.error.message, started_at: null });
      break;
    }
    case 'StepSkipped': {
      const s = step(view, e.payload.step_id);
      if (s) Object.assign(s, { status: 'skipped', skip_reason: e.payload.reason, started_at: null });
      break;
    }
    case 'RunResumed':
      // A retry: the run goes on, and the steps it reopens wait again.
      view.status = 'running';
      view.ended_at = null;
      view.error = null;
      view.cancel_reason = null;
      view.limit_reached = null;
      view.retries += 1;
      for (const id of e.payload.step_ids) {
        const s = step(view, id);
        if (!s) continue;
        Object.assign(s, { status: 'pending', error: null, skip_reason: null, started_at: null });
        // Its attempts go on counting from the last: the round says where this retry's began.
        s.round = { kind: 'retry', retry: view.retries, plan_version: null, first_attempt: null };
      }
      break;
    case 'RunTerminated':
      view.status = e.payload.status;
      view.ended_at = at;
      view.final_output = e.payload.final_output;
      view.cancel_reason = e.payload.status === 'cancelled' ? e.payload.reason : null;
      view.limit_reached = e.payload.limit?.message ?? null;
      view.error =
        e.payload.error?.message ??
        (e.payload.status === 'completed' || e.payload.status === 'cancelled' ? null : e.payload.reason);
      view.waiting = null;
      for (const s of view.steps) {
        if (s.status === 'running') Object.assign(s, { status: 'interrupted', started_at: null });
        // As the run records it: steps that never started can no longer run (a retry reopens them).
        if (s.status === 'pending' || s.status === 'retrying') s.status = 'skipped';
        for (const a of s.history) a.ended_at ??= at;
      }
      // A removed step's attempt still running when the run ended is interrupted too: its status is
      // the last it had, and a run that ended has nothing running (its late ToolReturned, if it comes,
      // records the attempt's outcome).
      for (const s of view.replaced) {
        if (s.status === 'running') s.status = 'interrupted';
        for (const a of s.history) a.ended_at ??= at;
      }
      break;
    default:
      break;
  }
  return view;
}

function returned(view: RunView, e: EventOf<'ToolReturned'>): void {
  const current = step(view, e.payload.step_id);
  // An attempt still running when a revision removed its step returns to that step's replaced entry.
  const s =
    current && current.history.some((a) => a.attempt === e.payload.attempt)
      ? current
      : (lastReplaced(view, e.payload.step_id) ?? current);
  if (!s) return;
  s.latency_ms = e.payload.latency_ms;
  s.started_at = null;
  const late = e.payload.after_run_ended === true;
  // The run's end closed every open attempt in the view; one that outlived it returns here.
  const attempt = s.history.findLast((a) => a.attempt === e.payload.attempt && (late || a.ended_at === null));
  if (attempt) {
    attempt.ended_at = Date.parse(e.timestamp);
    attempt.latency_ms = e.payload.latency_ms;
    attempt.success = e.payload.success;
    attempt.output = e.payload.output;
    attempt.error = e.payload.error ? { code: e.payload.error.code, message: e.payload.error.message } : null;
    attempt.cached = e.payload.cached === true;
    attempt.after_run_ended = late;
  }
  if (s !== current) {
    // A replaced step keeps the status it had; only its attempt's outcome is news.
    if (!e.payload.success) s.error = e.payload.error?.message ?? 'failed';
    return;
  }
  if (e.payload.success) Object.assign(s, { status: 'completed', error: null });
  else s.error = e.payload.error?.message ?? 'failed';
}
