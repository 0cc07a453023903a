/**
 * What a run object's `input()` is handed, read the same whichever release's Worker calls it — during
 * a gradual deployment a Worker of the release before calls objects of this one (docs/upgrading.md,
 * "Gradual deployments"). A Worker from before `approver` (2026-11-30's; 381a796, ae03508) passes
 * `{input, step_id}` on as two arguments, but a body with any other key whole, as the input — and
 * `approver` is what this release's clients send beside an answer (`edgeplan input --as`, the
 * dashboard's name, `answer_input`). Taken so, the question would be answered with the body itself,
 * its `step_id` unchecked and who answered lost. Such a body is read here as this release's Worker
 * reads it (approval/answer.ts).
 *
 * This release's Worker says it read the body itself (`split`: it sends how it let the caller in), so an answer that is an object with
 * an `approver` key of its own (`{"input": {"approver": …}}`) is left whole. A Worker of the release
 * just before this one (it knows `approver`, and passes three arguments) does not say so: such an
 * answer sent through it during the rollout is read as a body — the one shape the two cannot tell apart.
 */
import { z } from 'zod';
import { answerOf, type AnswerRefusal, type RunInput } from '../approval/answer';

/** A body as an older Worker's route parsed it (its schema: `step_id`, when given, a string). */
const OlderBody = z
  .object({
    input: z.unknown().optional(),
    step_id: z.string().optional(),
    approver: z.unknown().optional(),
    question_seq: z.unknown().optional(),
  })
  .catchall(z.unknown());

/** How `input()` was called: its arguments (`split`: its fourth, the caller's `via`, was sent). */
export type InputCall = {
  input: unknown;
  step_id: string | undefined;
  answered_by: string | undefined;
  /** The Worker read `approver` out of the body itself (this release's Worker and later). */
  split: boolean | undefined;
  /** The question the answer names, read out of the body by the Worker (its fifth argument). */
  question_seq?: number | undefined;
};

/**
 * The run's input from an `input()` call, or why the body in it is no answer. `verifiesIdentity`:
 * Cloudflare Access guards the API, where who answered is the signed-in identity — an older Worker did
 * not check the name against it, so the name is not recorded (the answer is taken without it).
 * @example
 * inputOfCall({ input: { input: 'yes', step_id: 'q', approver: 'Ada' }, step_id: undefined, answered_by: undefined, split: undefined }, false)
 * // { input: 'yes', step_id: 'q', answered_by: 'Ada' }
 */
export function inputOfCall(call: InputCall, verifiesIdentity: boolean): RunInput | AnswerRefusal {
  const { input, step_id, answered_by, split, question_seq } = call;
  const as = {
    input,
    ...(step_id === undefined ? {} : { step_id }),
    ...(answered_by === undefined ? {} : { answered_by }),
    ...(question_seq === undefined ? {} : { question_seq }),
  };
  // Read by the Worker already: by this release's, or an older one's `{input, step_id}` or `{input}`.
  if (split || step_id !== undefined || answered_by !== undefined || question_seq !== undefined) return as;
  if (
    typeof input !== 'object' ||
    input === null ||
    Array.isArray(input) ||
    !(Object.hasOwn(input, 'approver') || Object.hasOwn(input, 'question_seq'))
  )
    return as;
  const body = OlderBody.safeParse(input);
  if (!body.success) return as;
  return answerOf(body.data, verifiesIdentity ? undefined : body.data.approver);
}

/** Whether Cloudflare Access guards the API (either setting: half of it fails closed as well). */
export function accessGuards(env: { ACCESS_TEAM_DOMAIN?: string; ACCESS_AUD?: string }): boolean {
  return Boolean(env.ACCESS_TEAM_DOMAIN?.trim() || env.ACCESS_AUD?.trim());
}
