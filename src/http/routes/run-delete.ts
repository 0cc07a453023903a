/**
 * `DELETE /v1/runs/{id}`: an ended run and everything stored for it — its child runs, its D1 rows, its
 * KV entries, its object's storage (src/durable/run-deletion.ts). Afterwards every route for the run
 * answers 404 and the run list leaves it out; a second DELETE is a 404 too. `?force=true` deletes a run
 * this release cannot read (`run_unreadable`) without reading it; without it such a run answers that
 * error, saying so. A run a newer release wrote (`run_newer_format`) is never deleted here.
 */
import { createRoute } from '@hono/zod-openapi';
import { deleteIndexedRun, DELETION_RETRY_MS } from '../../durable/run-deletion';
import { jsonError } from '../errors';
import { errorResponses, V1_SECURITY } from '../openapi';
import { DeleteRunQuerySchema, RunIdParamSchema } from '../schemas/run';
import { DeletedRunSchema } from '../schemas/run-views';
import type { App } from '../types';
import { notFound, stubFor, tags } from '../run-helpers';

const remove = createRoute({
  method: 'delete',
  path: '/v1/runs/{id}',
  tags,
  operationId: 'deleteRun',
  summary: 'Delete an ended run and everything stored for it (its child runs too)',
  description:
    'Removes the run’s events, steps, outputs and state, its plan versions, planning attempts and ' +
    'index row, and its child runs. A run that has not ended is refused (`409 conflict`, ' +
    '`details.reason: "run_active"`): cancel it first. Once answered, every route for the run answers ' +
    '404 and its approval link no longer works. `503 deletion_pending`: the run is already hidden, ' +
    'and the rest is finished by the run itself within a minute (or by another DELETE). A run this ' +
    'release cannot read answers `500 run_unreadable`; `?force=true` deletes it without reading its ' +
    'state (its object, D1 rows, KV copies and child runs), and is a plain DELETE for a readable run. A ' +
    'run a newer release wrote answers `503 run_newer_format`, with `force` too: that release owns it.',
  security: V1_SECURITY,
  request: { params: RunIdParamSchema, query: DeleteRunQuerySchema },
  responses: {
    200: {
      description: 'The run is deleted',
      content: { 'application/json': { schema: DeletedRunSchema } },
    },
    ...errorResponses(400, 401, 404, 409, 503),
  },
});

/** Registers `DELETE /v1/runs/{id}`. */
export function registerRunDeleteRoutes(app: App): void {
  app.openapi(remove, async (c) => {
    const run = stubFor(c);
    if (!run) return notFound(c);
    const { force } = c.req.valid('query');
    const r = await run.deleteRun(force ? { force } : {});
    if (r.ok) return c.json(r.value, 200);
    if (r.error.code === 'run_active')
      return jsonError(c, 'conflict', r.error.message, {
        reason: r.error.code,
        run_id: c.req.valid('param').id,
      });
    if (r.error.code === 'deletion_pending') {
      c.header('Retry-After', String(DELETION_RETRY_MS / 1000));
      return jsonError(c, 'deletion_pending', r.error.message);
    }
    // The object keeps nothing: D1 may still list the run (an index row its object never kept).
    const id = c.req.valid('param').id;
    if (await deleteIndexedRun(c.env, id)) return c.json({ run_id: id, child_runs: [] }, 200);
    return notFound(c);
  });
}
