/**
 * The Worker: HTTP (Hono), the `steps` queue consumer, and the Durable Object classes wrangler binds.
 * Wiring only — behaviour lives in src/http, src/durable, src/executor.
 */
import { Hono } from 'hono';

export { PlanRun } from './durable/plan-run';
export { DemoCounters } from './executor/tools/demo-counters';

const app = new Hono<{ Bindings: Env }>();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
