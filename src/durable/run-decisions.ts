/**
 * The RPCs by which people steer the run (plan-run.ts names them): an approver's decision and the
 * approval link's page, a rollback, a revision asked for, an answer or new information, a retry. Each
 * checks what it is handed and gives the run one input; a decision that lets the run go on asks the
 * questions held back meanwhile.
 */
import type { RunStatus } from '../plan/model';
import { callerViaOf, type CallerVia } from '../approval/name-source';
import { approvalInput, approvalView, rollbackInput, type ApprovalView } from './approval';
import { PLANNER_NEEDED, plannerConfigured } from './planner-config';
import { accessGuards, inputOfCall } from './older-worker-answer';
import type { RpcResult, StatusResult } from './rpc-result';
import type { RunDriver } from './run-driver';
import { z } from 'zod';

/** `input()`'s `question_seq` as a Worker hands it: an RPC argument, checked as any boundary. */
const QuestionSeqArg = z.number().int().min(1).optional();

export async function retryRun(run: RunDriver, stepId?: string): Promise<StatusResult> {
  const resumed = await run.control({ type: 'resume', step_id: stepId });
  // A question step the cancel left running is asked again now, not at the next recovery alarm.
  if (resumed.ok) askUnasked(run);
  return resumed;
}

export async function approveRun(
  run: RunDriver,
  body: unknown,
  token?: string,
  caller?: CallerVia,
  planVersion?: number,
): Promise<StatusResult> {
  const m = run.load();
  if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
  const via = callerViaOf(caller);
  const version = typeof planVersion === 'number' ? planVersion : undefined;
  const r = await approvalInput(m.state, run.store, run.registry(), body, token, via, version);
  if (!r.ok) return { ok: false, error: r.refusal };
  const decided = await run.control(r.input);
  // A revision approved while a question step ran: its question, held back meanwhile, is asked now.
  if (decided.ok) askUnasked(run);
  return decided;
}

export async function approvalPageOf(run: RunDriver, token: string): Promise<RpcResult<ApprovalView>> {
  const m = run.load();
  if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
  const r = await approvalView(m.state, run.store, token);
  return r.ok ? { ok: true, value: r.view } : { ok: false, error: r.refusal };
}

export async function rollbackRun(
  run: RunDriver,
  version: number,
): Promise<RpcResult<{ status: RunStatus; plan_version: number }>> {
  const m = run.load();
  if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
  const r = rollbackInput(m.state, run.store, run.registry(), version);
  if (!r.ok) return { ok: false, error: r.refusal };
  const done = await run.control(r.input);
  // The version the run now has: the new one, or the current one when it already was that plan.
  const now = run.load()?.state.plan?.version ?? r.input.plan.version;
  return done.ok ? { ok: true, value: { status: done.value.status, plan_version: now } } : done;
}

export async function replanRun(run: RunDriver, env: Env, reason: string): Promise<StatusResult> {
  const m = run.load();
  if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
  // A run that could not be revised anyway is told why (404, 409) before what a revision would need.
  const revisable = m.state.status === 'running' || m.state.status === 'awaiting_input';
  if (revisable && !plannerConfigured(env)) {
    return { ok: false, error: { code: 'planning_unavailable', message: PLANNER_NEEDED } };
  }
  return run.control({ type: 'request_revision', trigger: 'user_request', reason });
}

export async function inputRun(
  run: RunDriver,
  env: Env,
  call: { input: unknown; step_id?: string; answered_by?: string; caller?: CallerVia; question_seq?: number },
): Promise<StatusResult> {
  const { input, step_id, answered_by, caller, question_seq } = call;
  const via = callerViaOf(caller);
  const asked = QuestionSeqArg.safeParse(question_seq);
  if (!asked.success) {
    const message = `question_seq: a whole number from 1 (got ${String(question_seq)})`;
    return { ok: false, error: { code: 'invalid_request', message } };
  }
  const sent = inputOfCall(
    { input, step_id, answered_by, split: via !== undefined, question_seq: asked.data },
    accessGuards(env),
  );
  if ('code' in sent) return { ok: false, error: sent };
  const answered = await run.control({
    type: 'input',
    ...sent,
    ...(sent.answered_by === undefined || via === undefined ? {} : { answered_by_via: via }),
  });
  // A question that came while this one was open is asked now (unasked-questions.ts).
  if (answered.ok) askUnasked(run);
  return answered;
}

/** Asks the questions of running `human.input` steps no one was asked, once the run runs again. */
function askUnasked(run: RunDriver): void {
  const m = run.load();
  if (m?.state.status !== 'running') return;
  run.inline.recover(m.state);
  run.expired.askAgain(m, Date.now());
}
