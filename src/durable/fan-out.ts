/**
 * Sending ready steps to the `steps` queue, 100 messages a call (the Queues limit). Never throws: a
 * step whose message could not be sent stays running until its deadline, when it is retried.
 */
import type { StepMessage } from './messages';
import { log } from '../log';

export async function sendSteps(queue: Queue<StepMessage>, messages: readonly StepMessage[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 100) {
    await queue.sendBatch(messages.slice(i, i + 100).map((body) => ({ body }))).catch((err: unknown) => {
      const runId = messages[0]?.run_id;
      log('steps_not_queued', `run ${runId}: steps not queued; their deadlines will retry them`, {
        run_id: runId,
        count: Math.min(100, messages.length - i),
        error: err,
      });
    });
  }
}
