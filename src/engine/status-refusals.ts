/**
 * Refusals of an input that comes at the wrong moment: the run is not in a status that takes it, or
 * the step answered is not the one the run waits on. Each says what the run is and what it needs.
 */
import { checkStageSchema } from '../plan/stage-schema';
import { TERMINAL_RUN_STATUSES } from '../plan/model';
import type { Refusal } from './machine-types';
import type { RunState } from './state';

export function notNow(s: RunState, what: string, needed: string): Refusal {
  return {
    code: 'conflict',
    message: `Run ${s.run_id} is ${s.status}; it can ${what} only while ${needed}.`,
    // `reason` says which rule refused; the statuses say what to wait for.
    details: { reason: 'run_status', status: s.status, needed },
  };
}

/**
 * A revision asked of a run that is not going on. An ended run's plan is never revised: said with
 * what does what was wanted — a failed run's failed steps run again by a retry, a failure re-planned
 * as it happens by `on_step_failure: "replan"`, any other change by a new run.
 */
export function notRevisable(s: RunState): Refusal {
  const refusal = notNow(s, 'revise its plan', 'running');
  if (!TERMINAL_RUN_STATUSES.has(s.status)) return refusal;
  const retry =
    s.status === 'failed'
      ? ` Run its failed steps again with POST /v1/runs/${s.run_id}/retry (edgeplan retry ${s.run_id}), or start`
      : ' Start';
  return {
    ...refusal,
    message:
      `Run ${s.run_id} is ${s.status}: an ended run's plan is not revised.${retry} a new run with the plan you want` +
      ` (config on_step_failure: "replan" has a failure re-planned while the run goes on).`,
  };
}

/**
 * What became of the plan awaiting approval, when the run no longer awaits it: decided (`by: timeout`
 * when its deadline's `default_action` decided, not a person), or the run ended first.
 */
function whatDecided(
  s: RunState,
): { decided: 'approved' | 'rejected' | 'ended'; by?: 'approver' | 'timeout' } | null {
  const decision = s.approval?.decision;
  const by = s.approval?.by === undefined ? {} : { by: s.approval.by };
  if (decision === 'granted') return { decided: 'approved', ...by };
  if (decision === 'rejected') return { decided: 'rejected', ...by };
  return decision === 'pending' && TERMINAL_RUN_STATUSES.has(s.status) ? { decided: 'ended' } : null;
}

/** " by its approval deadline (default_action)" when the deadline decided, else nothing. */
function byDeadline(what: { by?: 'approver' | 'timeout' }): string {
  return what.by === 'timeout' ? ' by its approval deadline (default_action)' : '';
}

/**
 * Why an approval decision cannot be taken now. Two approvers at once (two tabs, a link and the CLI):
 * the one who comes second is told what happened instead — the plan was approved, or rejected (and
 * whether the approval deadline did it), or the run ended before anyone decided — not only the status
 * the run has now.
 */
export function notAwaitingDecision(s: RunState): Refusal {
  const refusal = notNow(s, 'take an approval decision', 'awaiting_approval');
  const what = whatDecided(s);
  if (!what) return refusal;
  const happened =
    what.decided === 'ended'
      ? `Run ${s.run_id} ended (${s.status}) before its plan was decided`
      : `The plan of run ${s.run_id} was already ${what.decided}${byDeadline(what)}`;
  return {
    ...refusal,
    message: `${happened}, so this decision was not taken; the run is ${s.status}.`,
    details: { ...refusal.details, ...what },
  };
}

/** What the approval link's page says of a run no longer awaiting a decision (its `410 gone`). */
export function nothingToApprove(s: RunState): string {
  const what = whatDecided(s);
  const why =
    what === null
      ? ''
      : what.decided === 'ended'
        ? ' (it ended before its plan was decided)'
        : ` (its plan was already ${what.decided}${byDeadline(what)})`;
  return `Run ${s.run_id} is ${s.status}: nothing to approve${why}.`;
}

/**
 * Why a decision on plan version `decided` cannot be taken, or null when the run awaits approval of
 * that version (or the decider named none). Two people at once — one approving v2, the other rolling
 * back to a v3 — must not leave v3 approved by someone who only saw v2: they are told to look again.
 */
export function otherVersionAwaited(s: RunState, decided: number | undefined): Refusal | null {
  const awaited = s.plan?.version;
  if (decided === undefined || awaited === undefined || decided === awaited) return null;
  return {
    code: 'conflict',
    message: `Run ${s.run_id} now awaits approval of plan version ${awaited}, not version ${decided} this decision was about: look at version ${awaited} and decide again.`,
    details: { reason: 'plan_version_changed', plan_version: awaited, decided_version: decided },
  };
}

/**
 * Why an answer to `stepId` cannot be taken by a run that ended. Two people answering the question a
 * run's last step asked: the first answer completes the run, and the second is told the step has its
 * answer (`input_not_awaited`, as while the run goes on) — not only that the run is over.
 */
export function answeredBeforeEnd(s: RunState, stepId: string): Refusal {
  const failure = failureAnswered(s, stepId);
  if (failure) return failure;
  return s.steps.get(stepId)?.status === 'completed'
    ? answeredAlready(s, stepId)
    : notNow(s, 'take input', 'running');
}

/** The refusal of an answer to a step that has its answer: said so, to whoever answered second. */
function answeredAlready(s: RunState, stepId: string): Refusal {
  // Who answered and when, where the run knows it (a release before it kept neither).
  const first = s.question_answered?.step_id === stepId ? s.question_answered : null;
  const who = first?.answered_by === undefined ? '' : ` by ${first.answered_by}`;
  const when = first ? ` at ${first.answered_at}` : '';
  return {
    code: 'conflict',
    message: `Step "${stepId}" was answered already${who}${when}, so this answer was not taken; run ${s.run_id} is ${s.status}.`,
    details: {
      reason: 'input_not_awaited',
      step_id: stepId,
      status: s.status,
      ...(first?.answered_by === undefined ? {} : { answered_by: first.answered_by }),
      ...(first ? { answered_at: first.answered_at } : {}),
    },
  };
}

/** What each answer to a failed step's question did, for the person told it was answered first. */
const FAILURE_OUTCOME: Record<string, string> = {
  skip: 'skip it',
  abort: 'abort the run',
  replan: 'replan',
  retry: 'retry it',
};

/**
 * The refusal of an answer to a failed step's question that someone answered first (two people at
 * once: one says skip, the other abort): what was decided, and by whom — as an approver who comes
 * second is told — or null when the last such answer was not about `stepId`.
 */
function failureAnswered(s: RunState, stepId: string): Refusal | null {
  const first = s.failure_answered;
  if (first?.step_id !== stepId) return null;
  const who = first.answered_by === undefined ? '' : ` by ${first.answered_by}`;
  const what = FAILURE_OUTCOME[first.action] ?? first.action;
  return {
    code: 'conflict',
    message: `The failure of step "${stepId}" was answered already${who} (${first.action}: ${what}), so this answer was not taken; run ${s.run_id} is ${s.status}.`,
    details: {
      reason: 'input_not_awaited',
      step_id: stepId,
      status: s.status,
      decided: first.action,
      ...(first.answered_by === undefined ? {} : { answered_by: first.answered_by }),
    },
  };
}

/**
 * Why an answer to `stepId` cannot be taken, or null when the run waits on that step (a person's
 * question, or `ask_user` about its failure). Two people answering at once: the second is told the
 * question was answered, instead of having the answer taken as new information.
 */
export function notAwaited(s: RunState, stepId: string): Refusal | null {
  const rt = s.steps.get(stepId);
  if (!rt) return { code: 'unknown_step', message: `Run ${s.run_id} has no step "${stepId}".` };
  const waiting = s.status === 'awaiting_input' && s.awaiting?.step_id === stepId;
  if (waiting && (rt.status === 'running' || rt.status === 'failed')) return null;
  const failure = failureAnswered(s, stepId);
  if (failure) return failure;
  // Answered first by someone else (another tab, an agent): not advice to send it as new information.
  if (rt.status === 'completed') return answeredAlready(s, stepId);
  const now =
    s.awaiting?.step_id !== undefined && s.status === 'awaiting_input'
      ? `; the run waits on step "${s.awaiting.step_id}"`
      : '';
  return {
    code: 'conflict',
    message: `Step "${stepId}" is not waiting for an answer (it was answered already, or has not asked)${now}. Send the input without step_id to give the run new information.`,
    details: { reason: 'input_not_awaited', step_id: stepId, status: s.status },
  };
}

/**
 * Why `answer` cannot answer the question of `stepId`, or null when it fits the JSON Schema the
 * question gave (or it gave none). Refused before anything is recorded: the step keeps waiting for an
 * answer that fits, rather than completing with one its readers cannot use.
 */
export function answerUnfit(s: RunState, stepId: string, answer: unknown): Refusal | null {
  const schema = s.awaiting?.schema;
  if (schema === undefined) return null;
  const issues = checkStageSchema(schema, answer ?? null);
  if (issues.length === 0) return null;
  return {
    code: 'invalid_request',
    message: `The answer to step "${stepId}" does not fit the schema its question gave: ${issues.join('; ')}. Send an answer that does; the step still waits.`,
    details: { reason: 'answer_does_not_fit', step_id: stepId, issues, schema },
  };
}

/**
 * Why an answer naming question `asked` (its InputRequested's seq) cannot be taken, or null when the
 * run asks that question now — or asks one from before questions had ids (a row an older release
 * wrote), which is answered as before. Two people answering a failed step's question: the first says
 * retry, the step runs again, fails and asks again; the second answer, late, names the first question
 * and is refused, saying what became of it, instead of answering the new one.
 */
export function questionClosed(s: RunState, asked: number, stepId: string | undefined): Refusal | null {
  const now = s.status === 'awaiting_input' ? s.awaiting : null;
  if (now && (now.seq === undefined || now.seq === asked)) return null;
  const first = s.failure_answered?.question_seq === asked ? s.failure_answered : null;
  // A person's question (human.input) answered: who answered and when, not what (the answer is theirs).
  const person = s.question_answered?.question_seq === asked ? s.question_answered : null;
  const about = first?.step_id ?? person?.step_id ?? stepId;
  const step = about === undefined ? '' : ` (step "${about}")`;
  const what = first
    ? `was answered already${first.answered_by === undefined ? '' : ` by ${first.answered_by}`} (${first.action}: ${FAILURE_OUTCOME[first.action] ?? first.action})`
    : person
      ? `was answered already${person.answered_by === undefined ? '' : ` by ${person.answered_by}`} at ${person.answered_at}`
      : asked > s.seq
        ? 'has not been asked'
        : // Another question answered before the last one, or a seq that was never a question.
          'is not open (question_seq is the seq of the InputRequested event that asked it)';
  const next =
    now?.seq === undefined
      ? `; run ${s.run_id} is ${s.status}`
      : now.step_id === about && about !== undefined && asked < now.seq
        ? `; step "${about}" asks again, as question ${now.seq}: read it and answer that one`
        : `; run ${s.run_id} asks question ${now.seq}${now.step_id === undefined ? '' : ` (step "${now.step_id}")`} now`;
  return {
    code: 'question_closed',
    message: `Question ${asked} of run ${s.run_id}${step} ${what}${next}. This answer was not taken.`,
    details: {
      question_seq: asked,
      ...(about === undefined ? {} : { step_id: about }),
      status: s.status,
      asked_now: now?.seq ?? null,
      ...(first ? { decided: first.action } : {}),
      ...(first?.answered_by === undefined ? {} : { answered_by: first.answered_by }),
      ...(person?.answered_by === undefined ? {} : { answered_by: person.answered_by }),
      ...(person ? { answered_at: person.answered_at } : {}),
    },
  };
}
