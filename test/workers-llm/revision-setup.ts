/**
 * The run most revision-approval tests start from: v1 is `a`, then `flaky` (which always fails) — and
 * any `beside` steps of the test's — approved; the planner (scripted by the test) writes v2 to fix
 * it, and v2 awaits approval.
 */
import { expect } from 'vitest';
import { describedEcho as echo } from '../fixtures/echo-steps';
import { api, startRun, waitForRun, type Json } from '../workers/helpers';

/**
 * Starts that run with `config` (its approval and revision settings) and returns once v2 awaits
 * approval. `beside`: steps v1 has besides `a` and `flaky` (one still running when v2 comes).
 */
export async function revisionAwaitingApproval(
  config: Json,
  keyPrefix: string,
  beside: Json[] = [],
): Promise<string> {
  const flaky = {
    id: 'flaky',
    action: 'demo.flaky',
    parameters: { fail_times: 99, key: `${keyPrefix}-${crypto.randomUUID()}`, permanent: true },
    dependencies: ['a'],
  };
  const runId = await startRun({ steps: [echo('a'), ...beside, flaky] }, config);
  await waitForRun(runId, (r) => r.status === 'awaiting_approval');
  expect((await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' })).status).toBe(200);
  await waitForRun(runId, (r) => r.status === 'awaiting_approval' && r.plan_version === 2);
  return runId;
}
