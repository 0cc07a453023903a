/**
 * The message a ready step sends through the `steps` queue, and its check where a consumer reads it
 * (STYLE §8: zod at every boundary). A queue's messages outlive releases and anyone holding the
 * queue's binding can send one, so its consumers — `steps` and `steps-dlq` — take only what fits.
 */
import { log } from '../log';
import { z } from 'zod';
import { formatIssues } from '../executor/run-step';
import { RUN_ID_PATTERN, StepIdSchema } from '../plan/model';

/**
 * No defaults, no transforms: a body that fits is its own parsed value, so a consumer keeps the
 * queue's `Message` (with `ack`/`retry`). Fields a newer release adds are let through, unread.
 */
export const StepMessageSchema = z.object({
  run_id: z.string().regex(RUN_ID_PATTERN, 'run ids are "run_" and 1-64 letters or digits'),
  step_id: StepIdSchema,
  attempt: z.number().int().min(1),
  plan_version: z.number().int().min(1),
});
export type StepMessage = z.infer<typeof StepMessageSchema>;

/**
 * The messages of a batch that are step messages. Every other one is acknowledged and logged once
 * with why: retrying cannot make it fit, and one bad message must not stop the others of its batch.
 * @example
 * for (const m of stepMessages(batch.messages, 'steps consumer')) byRun.get(m.body.run_id)…
 */
export function stepMessages(
  messages: readonly Message<unknown>[],
  consumer: string,
): Message<StepMessage>[] {
  return messages.filter((m): m is Message<StepMessage> => {
    const parsed = StepMessageSchema.safeParse(m.body);
    if (parsed.success) return true;
    log(
      'queue_message_unreadable',
      `${consumer}: message ${m.id} acknowledged unread: not a step message {run_id, step_id, ` +
        `attempt, plan_version} (${formatIssues(parsed.error)})`,
    );
    m.ack();
    return false;
  });
}
