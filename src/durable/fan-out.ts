/**
 * Sending ready steps to the `steps` queue, 100 messages a call (the Queues limit). Never throws: a
 * step whose message could not be sent stays running until its deadline, when it is retried.
 */
import type { StepMessage } from './messages';
import { log } from '../log';
import { PLATFORM_LIMITS } from '../platform-limits';

/** Messages one `sendBatch` takes (a step message is ~200 bytes: 100 stay far within its 256 KB). */
const PER_CALL = PLATFORM_LIMITS.queueSendBatchMessages.value;

export async function sendSteps(queue: Queue<StepMessage>, messages: readonly StepMessage[]): Promise<void> {
  for (let i = 0; i < messages.length; i += PER_CALL) {
    await queue.sendBatch(messages.slice(i, i + PER_CALL).map((body) => ({ body }))).catch((err: unknown) => {
      const runId = messages[0]?.run_id;
      log('steps_not_queued', `run ${runId}: steps not queued; their deadlines will retry them`, {
        run_id: runId,
        count: Math.min(PER_CALL, messages.length - i),
        error: err,
      });
    });
  }
}
