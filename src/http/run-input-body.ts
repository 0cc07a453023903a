/**
 * The body of `POST /v1/runs/:id/input` as the Worker hands it to the run (src/approval/answer.ts),
 * with who the caller is: behind Cloudflare Access the signed-in identity is recorded as who answered
 * instead of `approver`, and another name is refused (`approver_mismatch`), as approve does.
 */
import { answerOf, type AnswerBody, type AnswerRefusal, type RunInput } from '../approval/answer';
import { signedInName } from './access/signed-in-approver';
import type { Caller } from './types';

export type { RunInput } from '../approval/answer';

export type RunInputRefusal = AnswerRefusal | { code: 'approver_mismatch'; message: string };

/**
 * The run's input from the request body (parsed by the route's schema: `step_id` a string) and who
 * the caller is, or why it is refused.
 * @example
 * runInputOf({ input: 'yes', step_id: 'ask', approver: 'Ada' }, { via: 'token' })
 * // { input: 'yes', step_id: 'ask', answered_by: 'Ada' }
 */
export function runInputOf(body: AnswerBody, caller: Caller): RunInput | RunInputRefusal {
  const signed = signedInName(body.approver, caller, 'answer');
  if (!signed.ok) return { code: 'approver_mismatch', message: signed.message };
  return answerOf(body, signed.name);
}
