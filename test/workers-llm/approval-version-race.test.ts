/**
 * A decision about one plan version racing a new version: a rollback that puts another in its place
 * while the run awaits approval, or a replan whose version comes to await it. The decision names the
 * version its decider looked at (`plan_version`) and is refused when the run awaits another by the
 * time it arrives — the approver of v2 never approves a v3 they did not see. The approval link refused
 * so is not spent: its holder looks again and decides. A rollback asks the approver about the version
 * it puts in place (its own request, webhook and link), as a revision does.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { api, events, startRun, waitForRun, type Json } from '../workers/helpers';
import { describedEcho as echo } from '../fixtures/echo-steps';
import { revisionAwaitingApproval as revisionSetup } from './revision-setup';

/** Where the runs' webhooks go: answered by the mocked fetch, never reached. */
const HOOK = 'http://127.0.0.1:9/hook';

const config = {
  require_plan_approval: true,
  approval: { revisions: 'ask', timeout_s: 600, webhook_url: HOOK },
  on_step_failure: 'replan',
  retry_failed_steps: 0,
  execution_mode: 'parallel',
  placement: 'queue',
};

afterEach(() => {
  setLlmFetch(null);
  vi.restoreAllMocks();
});

/** The approval links the runs' webhooks delivered, by plan version. */
function catchLinks(): Map<number, URL> {
  const links = new Map<number, URL>();
  const real = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const req = new Request(input, init);
    if (!req.url.startsWith(HOOK)) return real(input, init);
    const body = await req.json<Json>();
    links.set(body.plan_version as number, new URL(body.approval_url as string));
    return new Response('ok');
  });
  return links;
}

/** A run whose planner-written v2 (adding `fixed`) awaits approval, v1 (with the failing step) approved. */
const revisionAwaitingApproval = () => revisionSetup(config, 'version-race');

/** The planner's revision, the same every time it is asked (runs of earlier rounds may ask too). */
const revisedPlan = () =>
  setLlmFetch(
    scriptedLlm(
      Array.from({ length: 20 }, () => JSON.stringify({ steps: [echo('a'), echo('fixed', ['a'])] })),
    ).fetch,
  );

const granted = async (runId: string) =>
  (await events(runId)).filter((e) => e.event_type === 'ApprovalGranted');

describe('a decision about plan version N racing a new version N+1 (a rollback, a replan)', () => {
  it('is refused once the run awaits another version; a rollback asks the approver about the new one', async () => {
    const links = catchLinks();
    revisedPlan();
    const runId = await revisionAwaitingApproval();
    await vi.waitFor(() => expect(links.has(2)).toBe(true));
    const rolled = await api('POST', `/v1/runs/${runId}/rollback`, { version: 1 });
    expect(rolled.body).toMatchObject({ status: 'awaiting_approval', plan_version: 3 });

    const stale = await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve', plan_version: 2 });
    expect(stale.status).toBe(409);
    expect(stale.body.error.details).toMatchObject({
      reason: 'plan_version_changed',
      plan_version: 3,
      decided_version: 2,
    });
    expect(stale.body.error.message).toContain('now awaits approval of plan version 3');
    // The approver is asked about v3 as about any version awaiting them: its own request, webhook
    // and link; v2's link is no longer good (it was left deciding a version nobody was shown), and
    // says so: 410, naming v3 as the version that awaits now.
    const requested = (await events(runId)).filter((e) => e.event_type === 'ApprovalRequested');
    expect(requested.map((e) => e.payload.plan_version)).toEqual([1, 2, 3]);
    await vi.waitFor(() => expect(links.has(3)).toBe(true));
    const via = (link: URL, body: Json) => api('POST', `${link.pathname}${link.search}`, body);
    const staleLink = await via(links.get(2)!, {
      decision: 'modify',
      edits: [{ op: 'remove_step', step_id: 'a' }],
      plan_version: 2,
    });
    expect(staleLink.status).toBe(410);
    expect(staleLink.body.error).toMatchObject({
      code: 'approval_link_superseded',
      details: { asked_version: 2, awaited_version: 3 },
    });
    expect(await granted(runId)).toHaveLength(1);
    expect((await api('GET', `/v1/runs/${runId}`)).body.status).toBe('awaiting_approval');

    // Decided through v3's link, with the version its holder looked at.
    const decided = await via(links.get(3)!, {
      decision: 'reject',
      plan_version: 3,
      comment: 'not v1 again',
    });
    expect(decided.status).toBe(200);
    const run = await waitForRun(runId);
    expect(run.status).toBe('cancelled');
  });

  it(
    'sent at the same moment: the decision is on v2 or refused, never on the v3 its decider did not see',
    { timeout: 30_000 },
    async () => {
      catchLinks();
      revisedPlan();
      for (let round = 0; round < 4; round++) {
        const runId = await revisionAwaitingApproval();
        const approve = () =>
          api('POST', `/v1/runs/${runId}/approval`, {
            decision: 'approve',
            plan_version: 2,
            approver: 'Ada',
          });
        const rollback = () => api('POST', `/v1/runs/${runId}/rollback`, { version: 1 });
        const [a, r] =
          round % 2 === 0
            ? await Promise.all([approve(), rollback()])
            : await Promise.all([rollback(), approve()]).then(([x, y]) => [y, x] as const);
        expect(r.status).toBe(200);
        expect([200, 409]).toContain(a.status);
        const grants = await granted(runId);
        // One decision by Ada at most, and on the version she saw.
        const ada = grants.filter((e) => e.payload.approver === 'Ada');
        expect(ada.length).toBe(a.status === 200 ? 1 : 0);
        expect(ada.every((e) => e.references.plan_version === 2)).toBe(true);
        expect(a.status === 200 || a.body.error.details.reason === 'plan_version_changed').toBe(true);
        const now = (await api('GET', `/v1/runs/${runId}`)).body;
        // Refused: the run still awaits a decision, about v3.
        expect(a.status === 200 || (now.status === 'awaiting_approval' && now.plan_version === 3)).toBe(true);
        // Ended, so that nothing of this round's run asks the planner during the next.
        await api('POST', `/v1/runs/${runId}/cancel`, {});
      }
    },
  );

  it('sent with a replan: v1 is approved or the replan refused; an approval of v1 arriving after v2 is refused', async () => {
    catchLinks();
    revisedPlan();
    for (let round = 0; round < 2; round++) {
      const slow = {
        id: 'slow',
        action: 'demo.sleep',
        parameters: { ms: 800, value: 'slept' },
        dependencies: [],
      };
      const runId = await startRun({ steps: [echo('a'), slow] }, config);
      await waitForRun(runId, (r) => r.status === 'awaiting_approval');
      const approve = (v: number) =>
        api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve', plan_version: v });
      const replan = () => api('POST', `/v1/runs/${runId}/replan`, { reason: 'add a fixed step' });
      const [a, r] =
        round === 0
          ? await Promise.all([approve(1), replan()])
          : await Promise.all([replan(), approve(1)]).then(([x, y]) => [y, x] as const);
      expect(a.status).toBe(200);
      // A replan while v1 awaits its decision is refused; once v1 runs, it makes v2.
      expect(r.status === 200 || r.body.error.details.reason === 'run_status').toBe(true);
      if (r.status !== 200) expect((await replan()).status).toBe(200);
      await waitForRun(runId, (x) => x.status === 'awaiting_approval' && x.plan_version === 2);
      // An approver who read the run while v1 waited sends their approval now: not taken for v2.
      const stale = await approve(1);
      expect([stale.status, stale.body.error.details.reason]).toEqual([409, 'plan_version_changed']);
      expect((await granted(runId)).map((e) => e.references.plan_version)).toEqual([1]);
      expect((await approve(2)).status).toBe(200);
      expect((await granted(runId)).map((e) => e.references.plan_version)).toEqual([1, 2]);
      await api('POST', `/v1/runs/${runId}/cancel`, {});
    }
  }, 30_000);
});
