/**
 * `GET /v1/runs/{id}/approval?token=…` — the approval link opened in a browser (from Slack or an
 * e-mail): a page with the plan, its estimates and Approve / Reject / Modify, usable with no API
 * token. Showing it spends nothing; the decision (POST with the same token) does, once.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { RpcResult } from '../../durable/plan-run';
import type { ApprovalView } from '../../durable/approval';
import { isApprovalTokenShaped } from '../../approval/tokens';
import { estimatePlan } from '../../plan/estimates';
import { buildGraph } from '../../plan/graph';
import { inferredDependencies } from '../../plan/inferred-dependencies';
import { APPROVAL_PAGE_HEADERS, appShell, messagePage } from '../app-shell';
import { statusForCode } from '../errors';
import { stubFor, tags } from '../run-helpers';
import { RunIdParamSchema } from '../schemas/run';
import type { App } from '../types';

const page = createRoute({
  method: 'get',
  path: '/v1/runs/{id}/approval',
  tags,
  operationId: 'getApprovalPage',
  summary: 'The approval link’s page (HTML): the plan, its estimates, Approve / Reject / Modify',
  description:
    'Opened from the link the approval webhook carries. Needs no API token: the link’s single-use ' +
    'token is checked (not spent) by the run. A wrong token is 403, a used or expired link, or one whose run no longer awaits approval, 410; ' +
    'so is a link a newer one replaced (`approval_link_superseded`: a rollback or revision asked about a newer version), saying which version awaits now.',
  security: [],
  request: {
    params: RunIdParamSchema,
    query: z.object({ token: z.string().openapi({ description: 'The link’s token' }) }),
  },
  responses: {
    200: { description: 'The page', content: { 'text/html': { schema: z.string() } } },
    403: {
      description: 'Not this run’s link (`forbidden`)',
      content: { 'text/html': { schema: z.string() } },
    },
    410: {
      description:
        'The link was used or has expired, or its run no longer awaits approval (`gone`), or a newer link replaced it (`approval_link_superseded`)',
      content: { 'text/html': { schema: z.string() } },
    },
  },
});

const WRONG_LINK = 'This approval link is not valid. Ask for a new one, or decide from the dashboard.';

/** What the run says of the link (an RPC answer, re-typed from the stub's serialised form). */
function viewOf(c: Parameters<typeof stubFor>[0], token: string): Promise<RpcResult<ApprovalView>> {
  // A string no link carries, or no run: refused without waking an object.
  const run = isApprovalTokenShaped(token) ? stubFor(c) : null;
  if (!run) return Promise.resolve({ ok: false, error: { code: 'forbidden', message: WRONG_LINK } });
  return run.approvalPage(token);
}

/** Registers the page. */
export function registerApprovalPageRoutes(app: App): void {
  app.openAPIRegistry.registerPath(page);
  app.get('/v1/runs/:id/approval', async (c) => {
    const token = c.req.query('token') ?? '';
    const r = await viewOf(c, token);
    if (!r.ok) {
      // No run behind the id answers like a wrong token: the link's holder is the only one told more.
      const code = r.error.code === 'run_not_found' ? 'forbidden' : r.error.code;
      const status = statusForCode(code) as 403 | 410;
      const message = code === 'forbidden' ? WRONG_LINK : r.error.message;
      return c.html(messagePage('Approval link', message), status, APPROVAL_PAGE_HEADERS);
    }
    const { plan } = r.value;
    const graph = buildGraph(plan.steps);
    const estimates = estimatePlan(plan, graph, c.var.tools());
    // The dependencies references add ({{ steps.a.output }}): drawn dashed, as on the run page.
    const inferred = inferredDependencies(plan.steps, graph);
    return c.html(
      appShell(`Approve: ${r.value.goal || r.value.run_id}`, {
        approval: { ...r.value, estimates, inferred, token },
      }),
      200,
      APPROVAL_PAGE_HEADERS,
    );
  });
}
