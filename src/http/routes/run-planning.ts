/**
 * `GET /v1/runs/{id}/planning` — the planning trace of a goal run (SPEC §3 provenance): every LLM
 * attempt that planned or revised its plan (or failed to), oldest first — model, retry (repairs), candidate,
 * outcome, error, findings, tokens (estimated ones marked), latency. Prompts and answers stay in D1 (redacted).
 */
import { createRoute, z } from '@hono/zod-openapi';
import { D1ProvenanceStore } from '../../planner/provenance-d1';
import { errorResponses, V1_SECURITY } from '../openapi';
import { notFound, stubFor, tags } from '../run-helpers';
import { RunIdParamSchema } from '../schemas/run';
import { FindingSchema } from '../schemas/validation';
import { isRecord } from '../../plan/model';
import type { PlanStatusView } from '../../engine/status-view';
import type { App } from '../types';

const AttemptSchema = z
  .object({
    planning_id: z.string().openapi({ description: 'One planning request (a first plan, a revision)' }),
    seq: z.number().int(),
    model: z.string(),
    retry: z.number().int().openapi({ description: '0 for a first answer, 1… for repair prompts' }),
    candidate: z.number().int().openapi({ description: 'N-best: which candidate (0 when off)' }),
    outcome: z.enum(['ok', 'parse_error', 'invalid', 'call_error']),
    error: z.string().nullable(),
    findings: z.array(FindingSchema),
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    tokens_estimated: z.boolean().openapi({
      description:
        'The server never reported usage (the stream was cut off before it): the token counts are estimated as 4 characters a token',
    }),
    latency_ms: z.number(),
    strategy: z.string(),
    created_at: z.string(),
  })
  .openapi('PlanningAttempt');

export const PlanningTraceSchema = z
  .object({ run_id: z.string(), plan_id: z.string().nullable(), attempts: z.array(AttemptSchema) })
  .openapi('PlanningTrace');

const route = createRoute({
  method: 'get',
  path: '/v1/runs/{id}/planning',
  tags,
  operationId: 'getPlanningTrace',
  summary: 'The planning trace of a goal run: every LLM attempt, its model, outcome, findings and tokens',
  security: V1_SECURITY,
  request: { params: RunIdParamSchema },
  responses: {
    200: {
      description:
        'Attempts oldest first (empty for a submitted plan), those of a planning or revision that failed included',
      content: { 'application/json': { schema: PlanningTraceSchema } },
    },
    ...errorResponses(401, 404),
  },
});

/** The run's plan id (null while planning), or undefined when there is no such run. */
async function planIdOf(run: ReturnType<typeof stubFor>): Promise<string | null | undefined> {
  if (!run) return undefined;
  const view = (await run.getStatus({})) as PlanStatusView | null;
  if (view === null) return undefined;
  return view.plan_id;
}

/**
 * The attempts of a planning that produced no plan, named by the trace in the run's error
 * (`details.planning_trace[].attempt_id`): their D1 rows name no plan to find them by.
 */
async function failedAttemptIds(run: NonNullable<ReturnType<typeof stubFor>>): Promise<string[]> {
  // The RPC stub's type of the snapshot is too deep for TypeScript to follow: read what is needed.
  const snapshot = (await run.getRun()) as { error?: { details?: unknown } | null } | null;
  const details = snapshot?.error?.details;
  const trace = isRecord(details) && Array.isArray(details.planning_trace) ? details.planning_trace : [];
  return trace.flatMap((t: unknown) =>
    isRecord(t) && typeof t.attempt_id === 'string' ? [t.attempt_id] : [],
  );
}

/** Registers `GET /v1/runs/{id}/planning`. */
export function registerRunPlanningRoutes(app: App): void {
  app.openapi(route, async (c) => {
    const run = stubFor(c);
    const known = await planIdOf(run);
    if (known === undefined || !run) return notFound(c);
    const plan_id = known;
    const store = new D1ProvenanceStore(c.env.DB);
    // Attempts are filed under their run. A planning that failed names no plan — the first one, or a
    // revision after the run had a plan (whose tokens the run's usage counts): rows written before
    // attempts named their run are found by the plan and by the ids in the run's error.
    const runId = c.req.valid('param').id;
    const lists = await Promise.all([
      store.attemptsForRun(runId),
      plan_id ? store.attemptsForPlan(plan_id) : Promise.resolve([]),
      failedAttemptIds(run).then((ids) => store.attemptsByIds(ids)),
    ]);
    const byId = new Map(lists.flat().map((a) => [a.id, a]));
    const found = [...byId.values()].sort(
      (a, b) =>
        a.created_at.localeCompare(b.created_at) ||
        a.planning_id.localeCompare(b.planning_id) ||
        a.seq - b.seq,
    );
    const attempts = found.map((a) => ({
      planning_id: a.planning_id,
      seq: a.seq,
      model: a.model,
      retry: a.retry,
      candidate: a.candidate,
      outcome: a.outcome,
      error: a.error,
      findings: a.findings,
      prompt_tokens: a.prompt_tokens,
      completion_tokens: a.completion_tokens,
      tokens_estimated: a.tokens_estimated === true,
      latency_ms: a.latency_ms,
      strategy: a.strategy,
      created_at: a.created_at,
    }));
    return c.json({ run_id: runId, plan_id, attempts }, 200);
  });
}
