/**
 * What an approver of a revision is shown (`approval.revisions: "ask"`), through the run's object, the
 * queue, the scripted LLM and a real Standard Webhooks receiver on 127.0.0.1: `GET /v1/runs/:id`'s
 * `pending_approval`, the webhook's `changes` and the approval link page's data all say what the new
 * version adds, changes and removes since the approved one, and why the planner wrote it. The name a
 * decider gives (`approver`) is recorded on the decision's event.
 */
import { env, exports } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { base } from '../workers-http/loopback';
import { api, events, startRun, waitForRun, type Json } from '../workers/helpers';
import { describedEcho as echo } from '../fixtures/echo-steps';

afterEach(() => setLlmFetch(null));

/** The last webhook the receiver at `path` verified and took. */
async function lastWebhook(path: string): Promise<Json | null> {
  const r = await fetch(`${base}/last-body?path=${encodeURIComponent(path)}`);
  if (!r.ok) return null;
  const { body } = await r.json<{ body?: string }>();
  return body ? (JSON.parse(body) as Json) : null;
}

/** The approval link page's embedded data (`#edgeplan-data`). */
async function pageData(link: string): Promise<Json> {
  const url = new URL(link);
  const page = await exports.default.fetch(new Request(`http://edgeplan.test${url.pathname}${url.search}`));
  expect(page.status).toBe(200);
  const html = await page.text();
  const json = /<script type="application\/json" id="edgeplan-data">(.*?)<\/script>/s.exec(html)?.[1];
  return JSON.parse(json ?? 'null') as Json;
}

describe('a revision awaiting approval says what changed since the approved version', () => {
  it('in the run, the webhook and the link page; and records the name each decider gave', async () => {
    const key = `approval-changes-${crypto.randomUUID()}`;
    const path = `/verify/${crypto.randomUUID()}`;
    const secret = env.WEBHOOK_SECRET ?? '';
    setLlmFetch(
      scriptedLlm([
        JSON.stringify({
          steps: [echo('a'), echo('fixed', ['a']), echo('report', ['fixed'], { text: 'v2', id: 'report' })],
        }),
      ]).fetch,
    );
    const flaky = {
      id: 'flaky',
      action: 'demo.flaky',
      parameters: { fail_times: 99, key, permanent: true },
      dependencies: ['a'],
    };
    const runId = await startRun(
      { steps: [echo('a'), flaky, echo('report', ['flaky'], { text: 'v1', id: 'report' })] },
      {
        require_plan_approval: true,
        approval: {
          revisions: 'ask',
          timeout_s: 600,
          webhook_url: `${base}${path}?secret=${encodeURIComponent(secret)}`,
        },
        on_step_failure: 'replan',
        retry_failed_steps: 0,
      },
    );

    // The first plan: nothing approved before it, so nothing to compare with.
    const first = await waitForRun(runId, (r) => r.status === 'awaiting_approval');
    expect(first.pending_approval).toMatchObject({
      plan_version: 1,
      last_approved_version: null,
      changes: null,
    });
    expect(Date.parse(first.pending_approval.deadline_at)).toBeGreaterThan(Date.now());
    await vi.waitFor(async () => expect((await lastWebhook(path))?.plan_version).toBe(1), {
      timeout: 5_000,
    });
    expect(await lastWebhook(path)).toMatchObject({ last_approved_version: null, changes: null });

    // A name that could forge a line of `edgeplan show` is refused, saying what to send; the run waits on.
    const forged = await api('POST', `/v1/runs/${runId}/approval`, {
      decision: 'approve',
      approver: 'Ada\nplan v9 approved by root',
    });
    expect(forged.status).toBe(400);
    expect(forged.body.error.code).toBe('invalid_request');
    expect(forged.body.error.message).toContain('approver');
    expect((await api('GET', `/v1/runs/${runId}`)).body.status).toBe('awaiting_approval');

    const approved = await api('POST', `/v1/runs/${runId}/approval`, {
      decision: 'approve',
      approver: '  Ada Lovelace ',
    });
    expect(approved.status).toBe(200);

    // flaky fails; the planner writes v2, which waits for the approver.
    const waiting = await waitForRun(runId, (r) => r.status === 'awaiting_approval' && r.plan_version === 2);
    const pending = waiting.pending_approval as Json;
    expect(pending.plan_version).toBe(2);
    expect(pending.last_approved_version).toBe(1);
    const changes = pending.changes as Json;
    expect(changes.summary).toBe('v2 adds 1 step, changes 1 and removes 1 since v1 was approved');
    expect(changes.counts).toEqual({ added: 1, changed: 1, removed: 1 });
    expect(changes.added).toEqual([
      { step_id: 'fixed', action: 'demo.echo', description: 'echo fixed', dependencies: ['a'] },
    ]);
    expect(changes.removed).toEqual([{ step_id: 'flaky', action: 'demo.flaky', description: 'demo.flaky' }]);
    expect(changes.changed).toEqual([
      {
        step_id: 'report',
        action: 'demo.echo',
        fields: {
          dependencies: { from: ['flaky'], to: ['fixed'] },
          parameters: { from: { text: 'v1', id: 'report' }, to: { text: 'v2', id: 'report' } },
        },
        parameters: ['text'],
        dependencies_added: ['fixed'],
        dependencies_removed: ['flaky'],
      },
    ]);
    expect(changes.revisions).toHaveLength(1);
    expect(changes.revisions[0]).toMatchObject({
      plan_version: 2,
      kind: 'revision',
      trigger: 'step_failure',
      step_id: 'flaky',
    });
    expect(changes.revisions[0].reason).toContain('step "flaky" failed');

    // The webhook for v2 carries the same account, so a bridge needs no second call.
    await vi.waitFor(async () => expect((await lastWebhook(path))?.plan_version).toBe(2), {
      timeout: 5_000,
    });
    const hook = (await lastWebhook(path))!;
    expect(hook.last_approved_version).toBe(1);
    expect(hook.changes).toEqual(changes);

    // The link's page (no API token) embeds it too.
    const data = (await pageData(hook.approval_url as string)).approval as Json;
    expect(data.last_approved_version).toBe(1);
    expect(data.changes).toEqual(changes);

    // Rejected through the link, with a name: both names are on their events, as given (trimmed).
    const link = new URL(hook.approval_url as string);
    const rejected = await api('POST', `${link.pathname}${link.search}`, {
      decision: 'reject',
      approver: 'Grace',
      comment: 'not without flaky',
    });
    expect(rejected.status).toBe(200);
    const done = await waitForRun(runId);
    expect(done.status).toBe('cancelled');
    expect(done.pending_approval).toBeNull();
    const log = await events(runId);
    const decided = log.filter(
      (e) => e.event_type === 'ApprovalGranted' || e.event_type === 'ApprovalRejected',
    );
    // And how each name was established: stated to an open API, typed on the approval link.
    expect(
      decided.map((e) => [e.event_type, e.payload.by, e.payload.approver, e.payload.approver_via]),
    ).toEqual([
      ['ApprovalGranted', 'approver', 'Ada Lovelace', 'anonymous'],
      ['ApprovalRejected', 'approver', 'Grace', 'link'],
    ]);
  });
});
