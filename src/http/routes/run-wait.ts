/**
 * `GET /v1/runs/:id/wait`: the run, answered as soon as it ends, waits for a person, or records
 * anything new (`until`), or when `timeout_s` is up — a long poll that does not poll (run-wait.ts).
 * The MCP tool `wait_for_run` is this route.
 */
import { createRoute } from '@hono/zod-openapi';
import { errorResponses, V1_SECURITY } from '../openapi';
import { notFound, pastLastEvent, stubFor, tags } from '../run-helpers';
import { waitForRun } from '../run-wait';
import { RunIdParamSchema, WaitQuerySchema } from '../schemas/run';
import { RunWaitSchema } from '../schemas/run-views';
import { MAX_WAIT_S } from '../wait-condition';
import type { App } from '../types';
import { subrequestLimit } from '../../durable/subrequest-budget';

/** Calls of a wait's request kept back for what comes before it (a rate limit, Access's keys). */
const SPARE_CALLS = 5;

const wait = createRoute({
  method: 'get',
  path: '/v1/runs/{id}/wait',
  tags,
  operationId: 'waitForRun',
  summary: 'The run once it ends, waits for a person, or changes — or when the time is up',
  description:
    'Answers at once when the run is already there; else as soon as it gets there, following the ' +
    `run's events (no polling), or after \`timeout_s\` (at most ${MAX_WAIT_S}) with \`timed_out: true\`. ` +
    'An ended run ends every wait. Call again to wait longer.',
  security: V1_SECURITY,
  request: { params: RunIdParamSchema, query: WaitQuerySchema },
  responses: {
    200: {
      description: 'The run, and whether the time ran out first',
      content: { 'application/json': { schema: RunWaitSchema } },
    },
    ...errorResponses(400, 401, 404),
  },
});

/** Registers `GET /v1/runs/:id/wait`. */
export function registerRunWaitRoutes(app: App): void {
  app.openapi(wait, async (c) => {
    const run = stubFor(c);
    if (!run) return notFound(c);
    const q = c.req.valid('query');
    const done = await waitForRun(run, {
      until: q.until,
      after: q.after,
      timeoutMs: q.timeout_s * 1000,
      maxCalls: subrequestLimit(c.env) - SPARE_CALLS,
    });
    if (!done) return notFound(c);
    if ('after_beyond' in done)
      return pastLastEvent(
        c,
        { after: done.after },
        done.after_beyond,
        'the wait would answer only once the run passed it, its events up to it unseen. Pass a seq of ' +
          "this run's (its last_seq, or next_after from its events), or leave after out to count from its last event.",
      );
    return c.json(done, 200);
  });
}
