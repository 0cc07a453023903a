/**
 * A decision naming the plan version its decider looked at (`plan_version`, which this release's
 * dashboard, link page and CLI send) while a deploy rolls out: a run object of the release before
 * parses the body strictly and refused the key — every such decision was `400` there. This release's
 * Worker hands the version to the run beside the body, so the older object takes the decision
 * (unchecked, as it took every one), and this release's object checks it.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { startRun, waitForRun } from './helpers';
import { olderObjects, postThrough } from './older-run-objects';

/** `POST /v1/runs/:id/approval` to this release's Worker, its run objects `ns`. */
const decide = (ns: Env['PLAN_RUN'], runId: string, body: unknown) =>
  postThrough(ns, `/v1/runs/${runId}/approval`, body);

async function awaitingApproval(): Promise<string> {
  const runId = await startRun(
    { steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }] },
    { require_plan_approval: true },
  );
  await waitForRun(runId, (r) => r.status === 'awaiting_approval');
  return runId;
}

describe('a decision with plan_version while a deploy rolls out', () => {
  it('is taken by a run object of the release before, which never reads the version', async () => {
    const runId = await awaitingApproval();
    const r = await decide(olderObjects(), runId, { decision: 'approve', plan_version: 1, approver: 'Ada' });
    expect(r.status).toBe(200);
    expect((await waitForRun(runId)).status).toBe('completed');
  });

  it("is checked by this release's object, handed beside the body", async () => {
    const runId = await awaitingApproval();
    const stale = await decide(env.PLAN_RUN, runId, { decision: 'approve', plan_version: 7 });
    expect(stale.status).toBe(409);
    expect(stale.body.error.details).toMatchObject({ reason: 'plan_version_changed', decided_version: 7 });
    // A version that is no version stays in the body, refused by the decision's schema in its words.
    const bad = await decide(env.PLAN_RUN, runId, { decision: 'approve', plan_version: 'one' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('plan_version');
    const taken = await decide(env.PLAN_RUN, runId, { decision: 'approve', plan_version: 1 });
    expect(taken.status).toBe(200);
  });
});
