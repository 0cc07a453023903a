/**
 * The `steps` queue consumer: for each ready step, ask the run's object whether the attempt is still
 * wanted (and for its resolved parameters), run it, report the outcome over RPC. Messages of a batch
 * run concurrently. A message whose processing throws is retried by the queue; the object's
 * bookkeeping makes the repeat harmless (same attempt, same idempotency key, one recorded result).
 */
import { createToolRegistry } from '../executor/tools';
import { executeApproved } from './execute';
import type { StepMessage } from './messages';
import type { BeginStep } from './plan-run';

export async function consumeSteps(batch: MessageBatch<StepMessage>, env: Env): Promise<void> {
  const tools = createToolRegistry(env as unknown as Record<string, unknown>);
  await Promise.all(
    batch.messages.map(async (msg) => {
      const { run_id, step_id, attempt } = msg.body;
      try {
        const run = env.PLAN_RUN.getByName(run_id);
        const begin = (await run.beginStep(step_id, attempt)) as BeginStep;
        if (begin.proceed) {
          const outcome = await executeApproved({ run_id, step_id, attempt, ...begin }, tools, env);
          await run.completeStep(step_id, attempt, outcome);
        }
        msg.ack();
      } catch (err) {
        console.error(`steps consumer: ${run_id}/${step_id}#${attempt} will be redelivered`, err);
        msg.retry({ delaySeconds: 1 });
      }
    }),
  );
}
