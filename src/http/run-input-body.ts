/**
 * The body of `POST /v1/runs/:id/input` (SPEC §6) as the run takes it: `{input}` (the answer or new
 * information), `{input, step_id}` (the answer to that step only), or any other object (the input
 * whole) — and beside either, `approver`: who answers, as on an approval decision. It is never part of
 * the input; behind Cloudflare Access the signed-in identity is recorded instead and another name is
 * refused (`approver_mismatch`), as approve does.
 */
import { ApproverNameSchema } from '../approval/decision';
import { unknownKeysMessage } from '../plan/key-suggestions';
import { signedInName } from './access/signed-in-approver';
import type { Caller } from './types';

/** What the run is handed: the input, the step it answers, who sent it. */
export type RunInput = { input: unknown; step_id?: string; answered_by?: string };

export type RunInputRefusal = { code: 'invalid_request' | 'approver_mismatch'; message: string };

const ANSWER_KEYS = ['input', 'step_id', 'approver'];
const NAME = ApproverNameSchema.nullish();

/** Why a body with `step_id` is no answer to that step: `input` missing, or a key beside the three. */
function stepAnswerProblem(stepId: string, others: string[]): string {
  const send = `send {"input": <the answer>, "step_id": ${JSON.stringify(stepId)}}`;
  if (others.length === 0)
    return `step_id names the step whose question this answers; the answer goes in "input": ${send}`;
  return `With step_id, the body is an answer: {"input", "step_id", "approver"?} and nothing else. ${unknownKeysMessage(others, ANSWER_KEYS)}; ${send}`;
}

/**
 * The run's input from the request body (parsed by the route's schema: `step_id` a string) and who
 * the caller is, or why it is refused.
 * @example
 * runInputOf({ input: 'yes', step_id: 'ask', approver: 'Ada' }, { via: 'token' })
 * // { input: 'yes', step_id: 'ask', answered_by: 'Ada' }
 */
export function runInputOf(
  body: { input?: unknown; step_id?: string | undefined; approver?: unknown } & Record<string, unknown>,
  caller: Caller,
): RunInput | RunInputRefusal {
  const { approver, ...sent } = body;
  const signed = signedInName(approver, caller, 'answer');
  if (!signed.ok) return { code: 'approver_mismatch', message: signed.message };
  const name = NAME.safeParse(signed.name);
  if (!name.success)
    return {
      code: 'invalid_request',
      message: `approver: ${name.error.issues.map((i) => i.message).join('; ')} (got ${JSON.stringify(approver)})`,
    };
  const by = name.data ? { answered_by: name.data } : {};
  if (approver !== undefined && Object.keys(sent).length === 0)
    return {
      code: 'invalid_request',
      message:
        '"approver" says who answers; the answer goes beside it: send {"input": <the answer>, "approver": …}',
    };
  const { input: given, step_id, ...rest } = sent;
  const only = Object.keys(rest).length === 0;
  // With step_id the body is an answer to that step: without "input", or with another key beside
  // it ("inptu"), it would be taken whole as new information, answering the question with the body
  // itself the first time and revising the plan the second — step_id's guard unseen.
  if (step_id !== undefined && (given === undefined || !only))
    return { code: 'invalid_request', message: stepAnswerProblem(step_id, Object.keys(rest)) };
  // `{input, step_id}` answers that step; `{input}` is the input; any other object is the input whole.
  if (given !== undefined && only)
    return { input: given, ...(step_id === undefined ? {} : { step_id }), ...by };
  return { input: sent, ...by };
}
