/**
 * The Worker: HTTP (Hono), the `steps` queue consumer, and the Durable Object classes wrangler binds.
 * Wiring only — behaviour lives in src/http, src/durable, src/executor.
 */
import { consumeDeadLetters, isDeadLetterBatch } from './durable/dead-letter-consumer';
import { consumeSteps } from './durable/step-consumer';
import type { StepMessage } from './durable/messages';
import { createApp } from './http/app';

export { PlanRun } from './durable/plan-run';
export { DemoCounters } from './executor/tools/demo-counters';

const app = createApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) =>
    isDeadLetterBatch(batch) ? consumeDeadLetters(batch, env) : consumeSteps(batch, env),
} satisfies ExportedHandler<Env, StepMessage>;
