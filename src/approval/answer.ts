/**
 * The body of `POST /v1/runs/:id/input` (SPEC §6) as the run takes it: `{input}` (the answer or new
 * information), `{input, step_id}` (the answer to that step only), `{input, question_seq}` (the
 * answer to that question only, `step_id` beside it or not), or any other object (the input whole) —
 * and beside either, `approver`: who answers, as on an approval decision. It is never part of
 * the input. The Worker reads the body so (src/http/run-input-body.ts, with the caller's identity), and
 * so does a run object handed a body whole by a Worker from before `approver`
 * (src/durable/older-worker-answer.ts).
 */
import { z } from 'zod';
import { ApproverNameSchema } from './decision';
import { unknownKeysMessage } from '../plan/key-suggestions';
import { issueText } from '../issue-text';

/**
 * What the run is handed: the input, the step it answers, who sent it, and the question it answers
 * (`question_seq`: the seq of the InputRequested event that asked it).
 */
export type RunInput = { input: unknown; step_id?: string; answered_by?: string; question_seq?: number };

/** A body that is no answer, and why. */
export type AnswerRefusal = { code: 'invalid_request'; message: string };

/** The body as its route's schema parsed it: `step_id`, when given, a string. */
export type AnswerBody = {
  input?: unknown;
  step_id?: string | undefined;
  approver?: unknown;
  question_seq?: unknown;
} & Record<string, unknown>;

const ANSWER_KEYS = ['input', 'step_id', 'question_seq', 'approver'];
const QUESTION_SEQ = z.number().int().min(1);
const NAME = ApproverNameSchema.nullish();

/** Why a body with `step_id` is no answer to that step: `input` missing, or a key beside the three. */
function stepAnswerProblem(stepId: string, others: string[]): string {
  const send = `send {"input": <the answer>, "step_id": ${JSON.stringify(stepId)}}`;
  if (others.length === 0)
    return `step_id names the step whose question this answers; the answer goes in "input": ${send}`;
  return `With step_id, the body is an answer: {"input", "step_id", "question_seq"?, "approver"?} and nothing else. ${unknownKeysMessage(others, ANSWER_KEYS)}; ${send}`;
}

/**
 * The run's input from `body`, recorded as answered by `name` — the body's `approver`, or the
 * identity that stands for it (undefined or null: no one) — or why the body is refused.
 * @example
 * answerOf({ input: 'yes', step_id: 'ask', approver: 'Ada' }, 'Ada')
 * // { input: 'yes', step_id: 'ask', answered_by: 'Ada' }
 */
export function answerOf(body: AnswerBody, name: unknown): RunInput | AnswerRefusal {
  const { approver, ...sent } = body;
  const named = NAME.safeParse(name);
  if (!named.success)
    return {
      code: 'invalid_request',
      message: `approver: ${named.error.issues.map((i) => issueText(i)).join('; ')} (got ${JSON.stringify(approver)})`,
    };
  const by = named.data ? { answered_by: named.data } : {};
  if (approver !== undefined && Object.keys(sent).length === 0)
    return {
      code: 'invalid_request',
      message:
        '"approver" says who answers; the answer goes beside it: send {"input": <the answer>, "approver": …}',
    };
  const { input: given, step_id, question_seq, ...rest } = sent;
  const only = Object.keys(rest).length === 0;
  // With question_seq the body is an answer to that question: checked as step_id is, and a value that
  // is no question's seq refused here rather than taken as part of the input.
  if (question_seq !== undefined) {
    const seq = QUESTION_SEQ.safeParse(question_seq);
    if (!seq.success)
      return {
        code: 'invalid_request',
        message: `question_seq: the seq of the InputRequested event whose question this answers, a whole number from 1 (got ${JSON.stringify(question_seq)})`,
      };
    if (given === undefined || !only)
      return {
        code: 'invalid_request',
        message: `With question_seq, the body is an answer: {"input", "question_seq", "step_id"?, "approver"?} and nothing else. ${given === undefined ? 'The answer goes in "input"' : unknownKeysMessage(Object.keys(rest), ANSWER_KEYS)}`,
      };
    return {
      input: given,
      ...(step_id === undefined ? {} : { step_id }),
      question_seq: seq.data,
      ...by,
    };
  }
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
