/**
 * Approvers deciding one run at the same moment — two dashboard tabs, the approval link and the API:
 * one decision is taken and recorded once, and each of the others is told what happened instead (the
 * plan was approved, or rejected, or the run ended before anyone decided), not only the status the run
 * has now. Through the Worker, the run's object and the link's single-use token.
 */
import { runDurableObjectAlarm } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { APPROVER_URL, runAwaitingApproval } from './approval-helpers';
import { api, events, waitForRun, type Json } from './helpers';
import { echo } from '../fixtures/echo-steps';

const plan = { goal: 'decide me', steps: [echo('a'), echo('b', ['a'])] };
const config = { require_plan_approval: true, approval: { webhook_url: APPROVER_URL } };

afterEach(() => vi.restoreAllMocks());

type Answer = { status: number; body: Json };
const decide = (runId: string, body: Json, token?: string): Promise<Answer> =>
  api('POST', `/v1/runs/${runId}/approval${token ? `?token=${encodeURIComponent(token)}` : ''}`, body);

describe('decisions on one run sent at once', () => {
  it('take one; the others are told which decision was taken instead', async () => {
    for (let round = 0; round < 6; round++) {
      const { runId, token } = await runAwaitingApproval(plan, config);
      const sent: { body: Json; token?: string }[] = [
        { body: { decision: 'approve', approver: 'tab one' } },
        { body: { decision: 'reject', approver: 'tab two' } },
        { body: { decision: 'modify', edits: [{ op: 'remove_step', step_id: 'b' }], approver: 'cli' } },
        { body: { decision: round % 2 ? 'reject' : 'approve', approver: 'link' }, token },
      ];
      // A different order each round, so each kind of decision gets to come first.
      const order = sent.map((_, i) => sent[(i + round) % sent.length]!);
      const answers = await Promise.all(order.map((s) => decide(runId, s.body, s.token)));
      const taken = answers.filter((a) => a.status === 200);
      expect(taken).toHaveLength(1);
      const winner = order[answers.indexOf(taken[0]!)]!.body;
      const outcome = winner.decision === 'reject' ? 'rejected' : 'approved';
      for (const [i, a] of answers.entries()) {
        if (a.status === 200) continue;
        // The link's holder finds it dead (410); through the API, 409 — each naming the decision taken.
        expect(a.status).toBe(order[i]!.token ? 410 : 409);
        expect(a.body.error.message).toContain(`already ${outcome}`);
        expect(!!order[i]!.token || a.body.error.details.decided === outcome).toBe(true);
      }
      const run = await waitForRun(runId);
      expect(run.status).toBe(outcome === 'rejected' ? 'cancelled' : 'completed');
      const log = await events(runId);
      const decisions = log.filter((e) =>
        ['ApprovalGranted', 'ApprovalRejected'].includes(e.event_type as string),
      );
      expect(decisions.map((e) => e.payload.approver)).toEqual([winner.approver]);
      const seqs = log.map((e) => e.seq as number);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      expect(new Set(seqs).size).toBe(seqs.length);
    }
  });

  it('racing a cancel: a decision that comes second is told the run ended before it was decided', async () => {
    for (let round = 0; round < 4; round++) {
      const { runId } = await runAwaitingApproval(plan, config);
      const cancel = () => api('POST', `/v1/runs/${runId}/cancel`, {});
      const approve = () => decide(runId, { decision: 'approve' });
      const [c, a] =
        round % 2
          ? await Promise.all([cancel(), approve()])
          : (await Promise.all([approve(), cancel()])).reverse();
      expect([c!.status, a!.status]).toContain(200);
      const run = await waitForRun(runId);
      // Cancelled first: the approval is refused saying so. Approved first: the cancel stops the run.
      expect(
        a!.status === 200 || a!.body.error.message.includes('ended (cancelled) before its plan was decided'),
      ).toBe(true);
      expect(a!.status === 200 || a!.body.error.details.decided === 'ended').toBe(true);
      expect(c!.status === 200 || run.status === 'completed').toBe(true);
      const granted = (await events(runId)).filter((e) => e.event_type === 'ApprovalGranted');
      expect(granted).toHaveLength(a!.status === 200 ? 1 : 0);
    }
  });

  it('after the approval deadline decided, a later decider is told the deadline did it, not a person', async () => {
    for (const default_action of ['approve', 'reject'] as const) {
      const { runId, token } = await runAwaitingApproval(plan, {
        ...config,
        approval: { ...config.approval, timeout_s: 0.05, default_action },
      });
      // Past the deadline (50 ms), the alarm applies the default action; nothing is asserted of time.
      await new Promise((r) => setTimeout(r, 60));
      await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId));
      await waitForRun(runId);
      const outcome = default_action === 'approve' ? 'approved' : 'rejected';
      const said = `already ${outcome} by its approval deadline (default_action)`;
      const viaApi = await decide(runId, { decision: 'approve' });
      expect(viaApi.status).toBe(409);
      expect(viaApi.body.error.message).toContain(said);
      expect(viaApi.body.error.details).toMatchObject({ decided: outcome, by: 'timeout' });
      // The link ran out at the deadline: its holder learns what the deadline decided, on its page too.
      const viaLink = await decide(runId, { decision: 'approve' }, token);
      expect(viaLink.status).toBe(410);
      expect(viaLink.body.error.message).toContain(said);
      const page = await exports.default.fetch(
        `http://edgeplan.test/v1/runs/${runId}/approval?token=${encodeURIComponent(token)}`,
      );
      expect(page.status).toBe(410);
      expect(await page.text()).toContain(said);
    }
  });

  it('after a person decided, a later decider is not told a deadline did it', async () => {
    const { runId } = await runAwaitingApproval(plan, {
      ...config,
      approval: { ...config.approval, timeout_s: 600, default_action: 'reject' },
    });
    expect((await decide(runId, { decision: 'approve', approver: 'ana' })).status).toBe(200);
    const late = await decide(runId, { decision: 'reject' });
    expect(late.body.error.message).toContain('already approved, so');
    expect(late.body.error.details).toMatchObject({ decided: 'approved', by: 'approver' });
  });
});
