/**
 * The dashboard in a real browser (#13): Debian's chromium with playwright-core against `wrangler dev`
 * started here. A parallel run's graph reaching completed, approve with a modification (findings shown
 * inline first), the diff of the two versions, the approval link's page (no API token), and retry of a
 * failed step. Screenshots of each page go to test-results/screenshots/ for a person to review.
 */
import { describe, expect, it } from 'vitest';
import { askThenUse, holdWebSockets, recordButtons, type Json } from './dashboard-helpers';
import { dashboardSetup, type DevServer } from './dashboard-setup';
// @ts-expect-error -- a plain .mjs script without declarations
import { startDevServer } from '../../scripts/dev-server.mjs';

const { env, api, waitForStatus, open, shot } = dashboardSetup('dashboard-e2e', { webhooks: true });

const parallel = {
  goal: 'Fan out and join',
  steps: [
    { id: 'fetch', action: 'demo.echo', parameters: { value: 'data' } },
    { id: 'slow', action: 'demo.sleep', parameters: { ms: 400 }, dependencies: ['fetch'] },
    { id: 'fast', action: 'demo.sleep', parameters: { ms: 100 }, dependencies: ['fetch'] },
    {
      id: 'join',
      action: 'demo.echo',
      parameters: { got: '{{ steps.fetch.output }}' },
      dependencies: ['slow', 'fast'],
    },
  ],
};

const approvalLink = (runId: string) => env.hooks.approvalLink(runId);

/** A run of `parallel` awaiting approval, its webhook's link, and the link's page opened. */
async function openApprovalLink() {
  const { run_id } = (await api('POST', '/v1/runs', {
    plan: parallel,
    config: { require_plan_approval: true, approval: { webhook_url: env.hooks.url } },
  })) as { run_id: string };
  await waitForStatus(run_id, 'awaiting_approval');
  const link = await approvalLink(run_id);
  return { run_id, link, ...(await open(`${link.pathname}${link.search}`)) };
}

describe('the dashboard', () => {
  it('draws a parallel run’s graph live until every node is completed, with attempts and a timeline', async () => {
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: parallel,
      config: { execution_mode: 'parallel' },
    })) as { run_id: string };
    const { page, errors } = await open(`/#/runs/${run_id}`);
    await page.waitForSelector('[data-step-id="join"][data-status="completed"]', { timeout: 15_000 });
    const statuses = await page
      .locator('svg.dag [data-step-id]')
      .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-status')));
    expect(statuses).toEqual(['completed', 'completed', 'completed', 'completed']);
    // The critical path goes through the slow branch, and is highlighted.
    expect(
      await page
        .locator('svg.dag .node.critical')
        .evaluateAll((n) => n.map((x) => x.getAttribute('data-step-id'))),
    ).toEqual(['fetch', 'slow', 'join']);
    await page.click('svg.dag [data-step-id="slow"]');
    await expect(page.locator('.step-panel').innerText()).resolves.toMatch(
      /demo\.sleep[\s\S]*"ms": 400[\s\S]*attempts[\s\S]*ok/i,
    );
    await shot(page, 'run-graph');
    await page.getByRole('tab', { name: 'Timeline' }).click();
    await page.waitForSelector('.tl-bar.ok');
    // fast and slow overlap in time: parallelism is visible.
    const bars = await page
      .locator('.tl-row[data-step-id="slow"] .tl-bar, .tl-row[data-step-id="fast"] .tl-bar')
      .evaluateAll((b) => b.map((x) => (x as HTMLElement).style.left));
    expect(bars).toHaveLength(2);
    await shot(page, 'run-timeline');
    await page.getByRole('tab', { name: 'Events' }).click();
    await page.selectOption('.event-log select >> nth=0', 'ToolReturned');
    expect(await page.locator('ol.events li').count()).toBe(4);
    await shot(page, 'run-events');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('approves with a modification: findings inline first, then the edited plan runs; the versions diff shows it', async () => {
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: parallel,
      config: { require_plan_approval: true },
    })) as { run_id: string };
    await waitForStatus(run_id, 'awaiting_approval');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    await page.getByRole('button', { name: 'Modify' }).click();
    const editor = page.locator('.modify textarea');
    const broken = {
      ...parallel,
      steps: [...parallel.steps.slice(0, 3), { ...parallel.steps[3]!, dependencies: ['slow', 'nowhere'] }],
    };
    await editor.fill(JSON.stringify(broken, null, 2));
    await page.waitForSelector('.modify .findings li');
    await expect(page.locator('.modify .findings').innerText()).resolves.toMatch(/nowhere/);
    await expect(page.getByRole('button', { name: 'Approve modified plan' }).isDisabled()).resolves.toBe(
      true,
    );
    await shot(page, 'approve-modify-findings');
    const edited = {
      ...parallel,
      steps: [parallel.steps[0]!, parallel.steps[1]!, { ...parallel.steps[3]!, dependencies: ['slow'] }],
    };
    await editor.fill(JSON.stringify(edited, null, 2));
    await page.waitForSelector('.modify .ok');
    // The approver's comment goes with the modification, as with Approve or Reject.
    await page.getByLabel(/^Comment/).fill('Without fast: it is flaky today');
    await page.getByRole('button', { name: 'Approve modified plan' }).click();
    await page.waitForSelector('[data-step-id="join"][data-status="completed"]', { timeout: 15_000 });
    expect(await page.locator('svg.dag [data-step-id]').count()).toBe(3);
    const run = await waitForStatus(run_id, 'completed');
    expect(Object.keys(run.steps as Json).sort()).toEqual(['fetch', 'join', 'slow']);
    const { versions } = (await api('GET', `/v1/runs/${run_id}/plans`)) as { versions: Json[] };
    expect(versions.map((v) => v.reason)).toEqual(['authored', 'Without fast: it is flaky today']);

    await page.getByRole('tab', { name: 'Versions' }).click();
    await page.waitForSelector('.diff');
    await expect(
      page.locator('.diff li[data-step-id="fast"]').first().getAttribute('data-diff'),
    ).resolves.toBe('removed');
    await expect(
      page.locator('.diff li[data-step-id="join"]').last().getAttribute('data-diff'),
    ).resolves.toBe('changed');
    await shot(page, 'versions-diff');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('keeps a refused modification open: the edits stay and the findings are listed', async () => {
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: parallel,
      config: { require_plan_approval: true },
    })) as { run_id: string };
    await waitForStatus(run_id, 'awaiting_approval');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    // The API refuses the first modification, as it does a plan that changed under the editor's check.
    let posts = 0;
    await page.route('**/v1/runs/*/approval', async (route) => {
      if (route.request().method() !== 'POST' || posts++ > 0) return route.fallback();
      await route.fulfill({
        status: 422,
        contentType: 'application/json',
        body: JSON.stringify({
          error: {
            code: 'invalid_plan',
            message: 'The plan has 2 findings',
            details: {
              errors: [
                { code: 'unknown_tool', message: 'No tool named "x.y"', step_id: 'join' },
                { code: 'max_steps', message: 'The plan has 4 steps; max_steps is 3' },
              ],
            },
          },
        }),
      });
    });
    await page.getByRole('button', { name: 'Modify' }).click();
    const editor = page.locator('.modify textarea');
    const edited = {
      ...parallel,
      steps: [{ ...parallel.steps[0]!, parameters: { value: 'edited' } }, ...parallel.steps.slice(1)],
    };
    await editor.fill(JSON.stringify(edited, null, 2));
    const approve = page.getByRole('button', { name: 'Approve modified plan' });
    await page.locator('section.modify button.primary:not([disabled])').waitFor({ timeout: 10_000 });
    await approve.click();
    const refusal = page.locator('.modify .refusal');
    await refusal.waitFor({ timeout: 10_000 });
    await expect(refusal.locator('li').allInnerTexts()).resolves.toEqual([
      expect.stringMatching(/unknown_tool \[join\]: No tool named "x.y"/),
      expect.stringMatching(/max_steps: The plan has 4 steps; max_steps is 3/),
    ]);
    // The editor is still open, with the edits.
    await expect(editor.inputValue()).resolves.toContain('"edited"');
    await expect(page.locator('[data-run-status]').getAttribute('data-run-status')).resolves.toBe(
      'awaiting_approval',
    );
    await shot(page, 'approve-modify-refused');
    // Sent again (the API takes it this time): the edited plan runs.
    await approve.click();
    const run = await waitForStatus(run_id, 'completed');
    expect((run.step_results as Json).fetch).toEqual({ value: 'edited' });
    expect(posts).toBe(2);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('opens the approval link with no API token and approves from it, once', async () => {
    const { run_id, link, page, errors } = await openApprovalLink();
    await page.waitForSelector('svg.dag [data-step-id="join"]');
    await expect(page.locator('main.approval').innerText()).resolves.toMatch(
      /Approve this plan\?[\s\S]*4 steps, critical path fetch → slow → join/,
    );
    // In UTC, as the dashboard says every time (a locale's "12/1/2026, 4:54:11 PM" named no zone).
    await expect(page.locator('main.approval').innerText()).resolves.toMatch(
      /link valid until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/,
    );
    // join reads {{ steps.fetch.output }}: an inferred dependency, dashed in the graph and in the table.
    // (Soft: each check here stands for a fix of its own, and all are reported.)
    expect
      .soft(await page.locator('svg.dag polyline.edge.inferred[data-from="fetch"][data-to="join"]').count())
      .toBe(1);
    expect
      .soft(
        await page
          .locator('table.plan-steps tr', { has: page.locator('code', { hasText: /^join$/ }) })
          .innerText(),
      )
      .toMatch(/slow, fast, fetch \(inferred\)/);
    // Every edge inside the drawing (dagre routed the skipping one above it, where it was cut off).
    const outside = await page.evaluate(() => {
      const svg = document.querySelector('svg.dag')!;
      const [w, h] = [Number(svg.getAttribute('width')), Number(svg.getAttribute('height'))];
      return [...svg.querySelectorAll('polyline')].flatMap((l) =>
        [...l.points].filter((p) => p.x < 0 || p.y < 0 || p.x > w || p.y > h).map((p) => `${p.x},${p.y}`),
      );
    });
    expect.soft(outside).toEqual([]);
    await shot(page, 'approval-link');
    const sent: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname.endsWith('/approval'))
        sent.push(r.postData() ?? '');
    });
    // A double click sends the decision once: no "already used" refusal beside the approval.
    await page.getByRole('button', { name: 'Approve' }).dblclick();
    await page.waitForSelector('[role="status"]');
    await expect(page.locator('[role="status"]').innerText()).resolves.toMatch(/Approved/);
    await waitForStatus(run_id, 'completed');
    expect(sent).toHaveLength(1);
    await expect(page.locator('.error').count()).resolves.toBe(0);
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
    // Single use: the page now says the link is spent.
    const again = await fetch(link.href);
    expect(again.status).toBe(410);
    // Nobody typed a name: the run's page says where the approval came from, not "by the approver".
    await page.goto(`${env.server.base}/#/runs/${run_id}`);
    await expect(page.locator('.approval-note').innerText()).resolves.toBe(
      'Plan approved from the approval link',
    );
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('rejects from the approval link with the approver’s comment, which the run then shows', async () => {
    const { run_id, page, errors } = await openApprovalLink();
    // A modification with findings cannot be sent, as on the run page.
    await page.getByRole('button', { name: 'Modify' }).click();
    await page
      .locator('.modify textarea')
      .fill(JSON.stringify({ ...parallel, steps: [{ ...parallel.steps[0]!, dependencies: ['nowhere'] }] }));
    await page.locator('.modify .findings li').first().waitFor({ timeout: 10_000 });
    await expect(page.getByRole('button', { name: 'Approve modified plan' }).isDisabled()).resolves.toBe(
      true,
    );
    await page.getByLabel(/^Comment/).fill('Fetch from staging, not production');
    await page.getByRole('button', { name: 'Reject' }).click();
    await expect(page.locator('[role="status"]').innerText()).resolves.toMatch(/Rejected/);
    await shot(page, 'approval-link-rejected');
    const run = await waitForStatus(run_id, 'cancelled');
    expect(run.termination_reason).toBe('plan_rejected');
    await page.goto(`${env.server.base}/#/runs/${run_id}`);
    await expect(page.locator('[data-outcome="rejected"]').innerText()).resolves.toBe(
      'Plan rejected from the approval link: Fetch from staging, not production',
    );
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('retries a failed step from the run page', async () => {
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: {
        goal: 'flaky once',
        steps: [
          { id: 'flaky', action: 'demo.flaky', parameters: { fail_times: 1 } },
          { id: 'after', action: 'demo.echo', dependencies: ['flaky'] },
        ],
      },
      config: { retry_failed_steps: 0 },
    })) as { run_id: string };
    await waitForStatus(run_id, 'failed');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    await page.waitForSelector('[data-step-id="flaky"][data-status="failed"]');
    await shot(page, 'run-failed');
    await page.getByRole('button', { name: 'Retry' }).first().click();
    await page.waitForSelector('[data-step-id="after"][data-status="completed"]', { timeout: 15_000 });
    await waitForStatus(run_id, 'completed');
    await page.click('svg.dag [data-step-id="flaky"]');
    // Waited for: the retried attempt's row may come a moment after the run reads completed (under
    // load the panel once counted 1).
    await expect
      .poll(() => page.locator('.step-panel table.attempts tbody tr').count(), { timeout: 10_000 })
      .toBe(2);
    // The attempts fit the panel (the idempotency key was cut off), and a failure says its code once.
    const fits = await page
      .locator('.step-panel')
      .evaluate((panel) => panel.scrollWidth <= panel.clientWidth);
    expect(fits).toBe(true);
    const failure = await page.locator('.step-panel table.attempts tbody tr').first().innerText();
    expect(failure).toMatch(/demo_flaky attempt 1 of/);
    expect(failure).not.toMatch(/demo_flaky: demo\.flaky:/);
    await expect(
      page.locator('.step-panel table.attempts tbody tr').first().locator('code.key').isVisible(),
    ).resolves.toBe(true);
    await shot(page, 'run-retried');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('says when a step waiting for its retry tries again, and why then', async () => {
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: {
        goal: 'flaky, then a long backoff',
        steps: [{ id: 'flaky', action: 'demo.flaky', parameters: { fail_times: 1 } }],
      },
      config: { retry_failed_steps: 1, retry_delay: 600 },
    })) as { run_id: string };
    const { page, errors } = await open(`/#/runs/${run_id}`);
    await page.waitForSelector('[data-step-id="flaky"][data-status="retrying"]');
    await page.click('svg.dag [data-step-id="flaky"]');
    const next = page.locator('.step-panel [data-next-attempt]');
    await expect(next.getAttribute('data-next-attempt')).resolves.toBe('backoff');
    const run = (await api('GET', `/v1/runs/${run_id}`)) as { steps: Record<string, { retry_at?: string }> };
    const at = run.steps.flaky!.retry_at!;
    expect(await next.innerText()).toBe(`${at.slice(11, 19)} UTC — after the run’s backoff (retry_delay)`);
    await api('POST', `/v1/runs/${run_id}/cancel`, {});
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  // The approver read no deadline on the run page, nor that the plan would be approved (or rejected)
  // by itself then: the CLI said "until …", the page nothing.
  it('says when an approval is due and what happens then if nobody decides', async () => {
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: { goal: 'approved by itself', steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] },
      config: { require_plan_approval: true, approval: { timeout_s: 7200, default_action: 'approve' } },
    })) as { run_id: string };
    await waitForStatus(run_id, 'awaiting_approval');
    const run = (await api('GET', `/v1/runs/${run_id}`)) as {
      pending_approval: { deadline_at: string; default_action: string };
    };
    expect(run.pending_approval.default_action).toBe('approve');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    const deadline = page.locator('[data-approval-deadline="approve"]');
    await deadline.waitFor();
    const due = `${run.pending_approval.deadline_at.slice(0, 16).replace('T', ' ')} UTC`;
    await expect(deadline.innerText()).resolves.toBe(
      `Decide by ${due}: if nobody does, the plan is approved then and the run goes on (approval.default_action).`,
    );
    await shot(page, 'run-approval-deadline');
    // Decided: the deadline is no longer the page's.
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForSelector('[data-run-status="completed"]');
    await expect(page.locator('[data-approval-deadline]').count()).resolves.toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  // Whoever answered a human.input question read nothing of its deadline: it timed out a day (or the
  // step's timeout_ms) later, and was asked again or failed the step, unannounced.
  it('says when a question is due and what happens then if nobody answers', async () => {
    const ask = {
      id: 'ask',
      action: 'human.input',
      parameters: { prompt: 'Ship it?' },
      timeout_ms: 7_200_000,
    };
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: { goal: 'asked with a deadline', steps: [{ ...ask, retries: 2 }] },
    })) as { run_id: string };
    await waitForStatus(run_id, 'awaiting_input');
    const { events } = (await api('GET', `/v1/runs/${run_id}/events`)) as { events: Json[] };
    const asked = events.findLast((e) => e.event_type === 'InputRequested')!.payload as Json;
    expect(asked).toMatchObject({ if_unanswered: 'asked_again', retries_left: 2 });
    const { page, errors } = await open(`/#/runs/${run_id}`);
    const form = page.getByRole('form', { name: 'Answer the run' });
    const deadline = form.locator('[data-input-deadline="asked_again"]');
    await deadline.waitFor();
    const due = `${(asked.deadline as string).slice(0, 16).replace('T', ' ')} UTC`;
    await expect(deadline.innerText()).resolves.toBe(
      `Answer by ${due}: if nobody does, the step is asked again (2 retries left).`,
    );
    await shot(page, 'run-input-deadline');
    // Answered: the question, and its deadline, are no longer the page's.
    await form.locator('textarea').fill('yes');
    await form.getByRole('button', { name: 'Send' }).click();
    await page.waitForSelector('[data-run-status="completed"]');
    await expect(page.locator('[data-input-deadline]').count()).resolves.toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('offers no Retry for a run whose plan was rejected (the API would refuse it)', async () => {
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: { goal: 'reject me', steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }] },
      config: { require_plan_approval: true },
    })) as { run_id: string };
    await waitForStatus(run_id, 'awaiting_approval');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.waitForSelector('[data-run-status="cancelled"]');
    // Read afresh: the page follows the run again after a decision (and has read it up to its snapshot).
    await page.reload();
    await page.waitForSelector('main.run-page[aria-busy="false"]');
    await expect(page.locator('[data-run-status]').getAttribute('data-run-status')).resolves.toBe(
      'cancelled',
    );
    await page.click('svg.dag [data-step-id="a"]');
    await page.waitForSelector('.step-panel');
    await expect(page.getByRole('button', { name: 'Retry' }).count()).resolves.toBe(0);
    // Nothing ran: no step counts as done. (Soft: each check stands for a fix of its own.)
    const counts = await page.locator('.toolbar .muted').first().innerText();
    expect.soft(counts).toMatch(/^0\/1 steps completed · 1 skipped · v1/);
    // Why it was skipped, and that it never ran: no unresolved template called "resolved inputs".
    const panel = page.getByRole('complementary', { name: 'Step a' });
    // The page has its snapshot (skip reasons, inferred dependencies): it has read the run up to it.
    expect.soft(await panel.locator('[data-skip-reason]').count()).toBe(1);
    expect.soft(await panel.innerText()).toMatch(/the plan was rejected before it ran[\s\S]*never ran/);
    expect.soft(await panel.getByRole('heading', { name: 'Resolved inputs' }).count()).toBe(0);
    await shot(page, 'run-rejected');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('offers no action from a run’s past while it reads the run’s events: no Retry on a rejected run, no Roll back on a completed one', async () => {
    const one = { id: 'a', action: 'demo.echo', parameters: { v: 1 } };
    const rejected = (await api('POST', '/v1/runs', {
      plan: { goal: 'rejected, read slowly', steps: [one] },
      config: { require_plan_approval: true },
    })) as { run_id: string };
    const done = (await api('POST', '/v1/runs', {
      plan: { goal: 'completed, read slowly', steps: [one] },
      config: { require_plan_approval: true },
    })) as { run_id: string };
    await waitForStatus(rejected.run_id, 'awaiting_approval');
    await api('POST', `/v1/runs/${rejected.run_id}/approval`, { decision: 'reject' });
    await waitForStatus(done.run_id, 'awaiting_approval');
    await api('POST', `/v1/runs/${done.run_id}/approval`, {
      decision: 'modify',
      plan: { goal: 'completed, read slowly', steps: [one, { ...one, id: 'a2' }] },
    });
    await waitForStatus(rejected.run_id, 'cancelled');
    await waitForStatus(done.run_id, 'completed');
    const page = await env.browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // The past's pages come late: the run's snapshot is drawn long before its events are read.
    await page.route('**/v1/runs/*/events?*', async (route) => {
      await new Promise((r) => setTimeout(r, 500));
      await route.fallback();
    });
    await page.addInitScript(recordButtons);
    const seen = () =>
      page.evaluate(() => [...(window as unknown as { buttonsSeen: Set<string> }).buttonsSeen]);
    const actions = /^(Approve|Reject|Modify|Retry|Cancel|Roll back)/;

    // The snapshot (cancelled) comes first, the events after it: "awaiting approval" among them.
    await page.goto(`${env.server.base}/#/runs/${rejected.run_id}`);
    await page.waitForSelector('[data-outcome="rejected"]');
    await page.locator('.toolbar .muted', { hasText: '1 skipped' }).waitFor();
    expect((await seen()).filter((b) => actions.test(b))).toEqual([]);
    // Its badge said rejected from the snapshot on, never the cancelled the API's status is.
    const badges = await page.evaluate(() => [
      ...(window as unknown as { badgesSeen: Set<string> }).badgesSeen,
    ]);
    expect(badges).toContain('rejected');
    expect(badges).not.toContain('cancelled');

    // The snapshot held back until the events are read: v2 is current while the run still runs.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route(`**/v1/runs/${done.run_id}`, async (route) => {
      await held;
      await route.fallback();
    });
    await page.goto(`${env.server.base}/#/runs/${done.run_id}/versions`);
    await page.waitForSelector('.versions tr.current >> text=v2');
    await page.waitForSelector('[data-run-status="completed"]');
    const snapshot = page.waitForResponse((r) => r.url().endsWith(`/v1/runs/${done.run_id}`));
    release();
    await snapshot;
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(r)));
    expect((await seen()).filter((b) => actions.test(b))).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('rejects from the run page with the approver’s comment, which the rejected run shows', async () => {
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: {
        goal: 'reject with a comment',
        steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }],
      },
      config: { require_plan_approval: true },
    })) as { run_id: string };
    await waitForStatus(run_id, 'awaiting_approval');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    await page.getByLabel(/^Comment/).fill('Not today: the quota is spent', { timeout: 10_000 });
    // A run given no input (its input is `{}`) shows none.
    expect(await page.locator('details.run-input').count()).toBe(0);
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.waitForSelector('[data-run-status="cancelled"]');
    await expect(page.locator('[data-outcome="rejected"]').innerText()).resolves.toMatch(
      /Not today: the quota is spent/,
    );
    await shot(page, 'run-rejected-with-comment');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows the run’s input beside a plan awaiting approval: what its {{ input.… }} will read', async () => {
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: {
        goal: 'page the team',
        steps: [{ id: 'page', action: 'demo.echo', parameters: { team: '{{ input.team }}' } }],
      },
      input: { team: 'sre-checkout' },
      config: { require_plan_approval: true },
    })) as { run_id: string };
    await waitForStatus(run_id, 'awaiting_approval');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    const input = page.locator('details.run-input');
    await input.waitFor({ timeout: 10_000 });
    expect(await input.getAttribute('open')).not.toBeNull();
    await expect(input.innerText()).resolves.toMatch(
      /^Input \(\d+ characters\)[\s\S]*"team": "sre-checkout"/,
    );
    await shot(page, 'run-awaiting-approval-input');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForSelector('[data-run-status="completed"]');
    // Decided: still there, folded.
    expect(await input.getAttribute('open')).toBeNull();
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('keeps Approve, Reject, Modify and Cancel on one line beside a long goal on a desktop', async () => {
    const goal = `Deploy the new pricing page to production after checking ${'the staging build, '.repeat(8)}and stop`;
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: { goal, steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }] },
      config: { require_plan_approval: true },
    })) as { run_id: string };
    await waitForStatus(run_id, 'awaiting_approval');
    const page = await env.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${env.server.base}/#/runs/${run_id}`);
    await page.getByRole('button', { name: 'Cancel' }).waitFor();
    const tops = await page
      .locator('.toolbar button')
      .evaluateAll((bs) => bs.map((b) => [b.textContent, Math.round(b.getBoundingClientRect().top)]));
    // Modify and Cancel wrapped to a second line under Approve and Reject: now the goal gives way.
    expect(tops.map(([name]) => name)).toEqual(['Approve', 'Reject', 'Modify', 'Cancel']);
    expect(new Set(tops.map(([, top]) => top)).size).toBe(1);
    const heading = page.locator('.toolbar h1');
    await expect(heading.evaluate((h) => h.scrollWidth > h.clientWidth)).resolves.toBe(true);
    // The heading, badge and buttons on the one line too.
    const middle = async (selector: string) => {
      const box = await page.locator(selector).first().boundingBox();
      return Math.round((box?.y ?? 0) + (box?.height ?? 0) / 2);
    };
    const line = await middle('.toolbar button');
    await expect(middle('.toolbar h1')).resolves.toBeCloseTo(line, -1);
    await expect(middle('.toolbar .badge')).resolves.toBeCloseTo(line, -1);
    await shot(page, 'run-long-goal-awaiting-approval');
    await page.close();
  }, 60_000);

  it('shows a long goal whole: in the heading’s tooltip, and wrapped on a click', async () => {
    const goal = `Summarise ${'every quarterly report of every region '.repeat(6)}and stop`;
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: { goal, steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }] },
    })) as { run_id: string };
    await waitForStatus(run_id, 'completed');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    const heading = page.locator('.toolbar h1');
    await page.waitForSelector('[data-run-status="completed"]');
    await expect(heading.getAttribute('title')).resolves.toBe(goal);
    const cut = () => heading.evaluate((h) => h.scrollWidth > h.clientWidth);
    await expect(cut()).resolves.toBe(true);
    await heading.click();
    await expect(cut()).resolves.toBe(false);
    // A screen reader reads the goal whole either way: a heading has no expanded state to announce.
    await expect(heading.getAttribute('aria-expanded')).resolves.toBe(null);
    await shot(page, 'run-long-goal');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('opens a step from the keyboard: graph nodes are in the tab order, and the tabs take the arrow keys', async () => {
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: parallel,
      config: { execution_mode: 'parallel' },
    })) as {
      run_id: string;
    };
    await waitForStatus(run_id, 'completed');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    const node = page.locator('svg.dag [data-step-id="slow"]');
    await node.waitFor();
    await expect(node.getAttribute('tabindex')).resolves.toBe('0');
    await node.focus();
    await page.keyboard.press('Enter');
    await page.locator('.step-panel header', { hasText: 'slow' }).waitFor();
    // Space too, as a button takes it.
    await page.locator('svg.dag [data-step-id="fast"]').focus();
    await page.keyboard.press('Space');
    await page.locator('.step-panel header', { hasText: 'fast' }).waitFor({ timeout: 5_000 });
    // An unknown tab in the address falls back to the graph.
    await page.goto(`${env.server.base}/#/runs/${run_id}/bogus`);
    await page.locator('svg.dag [data-step-id="slow"]').waitFor({ timeout: 10_000 });
    await expect(page.getByRole('tab', { name: 'Graph' }).getAttribute('aria-selected')).resolves.toBe(
      'true',
    );
    // The tabs as a tab list is used: the arrow keys, Home and End open a tab, focus going with them.
    // The address changes first and the tabs are drawn after it: each is waited for, not read once.
    const selectedIs = (name: string) =>
      page.locator('[role="tab"][aria-selected="true"]', { hasText: name }).waitFor({ timeout: 5_000 });
    const focusIsOn = (name: string) =>
      page.waitForFunction((n) => document.activeElement?.textContent === n, name, { timeout: 5_000 });
    await page.getByRole('tab', { name: 'Graph' }).focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => location.hash.endsWith('/timeline'));
    await selectedIs('Timeline');
    await focusIsOn('Timeline');
    await page.keyboard.press('End');
    await page.waitForFunction(() => location.hash.endsWith('/planning'));
    await focusIsOn('Planning');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => location.hash.endsWith('/graph'));
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => location.hash.endsWith('/planning'));
    await page.keyboard.press('Home');
    await page.waitForFunction(() => location.hash.endsWith('/graph'));
    await selectedIs('Graph');
    await expect(page.locator('[role="tab"][aria-selected="true"]').innerText()).resolves.toBe('Graph');
    // Only the open tab is a Tab stop: Tab from it goes on into the graph, not to the next tab.
    await expect(page.locator('[role="tab"][tabindex="0"]').count()).resolves.toBe(1);
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.getAttribute('role'))).resolves.not.toBe('tab');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('checks a modified plan against the run’s own max_steps, not the default 20', async () => {
    const steps = Array.from({ length: 25 }, (_, i) => ({
      id: `s${i}`,
      action: 'demo.echo',
      parameters: { i },
      dependencies: [],
    }));
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: { goal: '25 steps', steps },
      config: { require_plan_approval: true, max_steps: 100 },
    })) as { run_id: string };
    await waitForStatus(run_id, 'awaiting_approval');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    await page.getByRole('button', { name: 'Modify' }).click();
    const approve = page.getByRole('button', { name: 'Approve modified plan' });
    // Enabled once the editor's validation (with the run's limits) says the plan is valid.
    await page.locator('section.modify button.primary:not([disabled])').waitFor({ timeout: 10_000 });
    await approve.click();
    await waitForStatus(run_id, 'completed');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('keeps the rows "More" loaded when the list refreshes itself, and focus on a run once More is gone', async () => {
    const plan = { goal: 'many', steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }] };
    await Promise.all(Array.from({ length: 55 }, () => api('POST', '/v1/runs', { plan })));
    const { page, errors } = await open('/#/');
    const rows = page.locator('table.runs tbody tr');
    await page.waitForFunction(() => document.querySelectorAll('table.runs tbody tr').length === 50);
    await page.getByRole('button', { name: 'More' }).click();
    await page.waitForFunction(() => document.querySelectorAll('table.runs tbody tr').length > 50);
    const more = await rows.count();
    // The list refreshes every 5 s; after one, the rows are all still there.
    await page.waitForTimeout(6_000);
    await expect(rows.count()).resolves.toBeGreaterThanOrEqual(more);
    // From the keyboard to the last page: More goes away, focus to the first run the last one brought.
    const button = page.getByRole('button', { name: 'More' });
    for (let i = 0; i < 20 && (await button.count()) > 0; i++) {
      const count = await rows.count();
      await button.focus();
      await page.keyboard.press('Enter');
      await page.waitForFunction((n) => document.querySelectorAll('table.runs tbody tr').length > n, count);
    }
    await expect(button.count()).resolves.toBe(0);
    await page.waitForFunction(() => document.activeElement?.closest('table.runs tbody tr') !== null);
    await expect(
      page.evaluate(() => document.activeElement?.tagName + (document.activeElement?.textContent ?? '')),
    ).resolves.toMatch(/^Arun_/);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('lists each run once, none lost, when the list’s refresh is answered after More', async () => {
    const plan = { goal: 'paged', steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }] };
    // Three pages at least: the second More has older runs to read.
    await Promise.all(Array.from({ length: 101 }, () => api('POST', '/v1/runs', { plan })));
    const { page, errors } = await open('/#/');
    const ids = () =>
      page.evaluate(() =>
        [...document.querySelectorAll('table.runs tbody tr')].map((r) => r.getAttribute('data-run-id')),
      );
    const rows = async () => (await ids()).length;
    await page.waitForFunction(() => document.querySelectorAll('table.runs tbody tr').length === 50);
    const pushed = (await ids())[49];
    // The list's next refresh (every 5 s: its newest 50, no cursor) is held until More was answered;
    // the ones after it until the test is done (a refresh of all 100 rows would mend what it did).
    let release = () => undefined as void;
    const released = new Promise<void>((r) => (release = r));
    let done = () => undefined as void;
    const finished = new Promise<void>((r) => (done = r));
    let refreshes = 0;
    const held = new Promise<void>((asked) => {
      void page.route(
        (url) => url.pathname === '/v1/runs' && !url.searchParams.has('cursor'),
        async (route) => {
          refreshes += 1;
          if (refreshes === 1) asked();
          await (refreshes === 1 ? released : finished);
          await route.continue().catch(() => undefined);
        },
      );
    });
    await held;
    await page.getByRole('button', { name: 'More' }).click();
    await expect.poll(rows, { timeout: 15_000 }).toBe(100);
    // A run created meanwhile: the held refresh, answered now, lists it first (and is then drawn).
    const { run_id: late } = (await api('POST', '/v1/runs', { plan })) as { run_id: string };
    release();
    await page.locator(`[data-run-id="${late}"]`).waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'More' }).click();
    await expect.poll(rows, { timeout: 15_000 }).toBeGreaterThan(101);
    const listed = await ids();
    // Each run once (the refresh's answer put More back after its own 50: the second More read those
    // again), and the run the late one pushed past the refresh's 50 still listed.
    expect(listed.length - new Set(listed).size).toBe(0);
    expect(listed).toContain(pushed);
    expect(errors).toEqual([]);
    done();
    await page.close();
  }, 90_000);

  it('shows a goal run’s planning tab: its versions, and that no LLM planned it', async () => {
    // A goal the rule-based planner plans (no LLM here).
    const { run_id } = (await api('POST', '/v1/runs', { goal: 'echo hello then wait 50 ms' })) as {
      run_id: string;
    };
    await waitForStatus(run_id, 'completed');
    const { page, errors } = await open(`/#/runs/${run_id}/planning`);
    await page.waitForSelector('section.planning tbody tr');
    await expect(page.locator('section.planning tbody tr').first().innerText()).resolves.toMatch(/^v1\b/);
    await page.getByText('No LLM planned this run').waitFor({ timeout: 10_000 });
    await shot(page, 'planning-tab');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('says it is reading a run not read yet on a slow link, not that a run awaiting approval is planning with no plan', async () => {
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: parallel,
      config: { require_plan_approval: true },
    })) as { run_id: string };
    await waitForStatus(run_id, 'awaiting_approval');
    const page = await env.browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // The snapshot, the pages of the run's past and the live connection all held back, as on a slow link.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    for (const url of [`**/v1/runs/${run_id}`, `**/v1/runs/${run_id}/events?*`])
      await page.route(url, async (route) => {
        await held;
        await route.continue();
      });
    await page.addInitScript(holdWebSockets);
    await page.goto(`${env.server.base}/#/runs/${run_id}`);
    const unread = page.locator('[data-run-unread]');
    await expect(unread.innerText()).resolves.toBe('reading the run…');
    await expect(page.locator('main').getAttribute('aria-busy')).resolves.toBe('true');
    await shot(page, 'run-reading');
    // Nothing guessed meanwhile: no status, no "No plan yet.", no tabs of a run not known.
    await expect(page.locator('[data-run-status]').count()).resolves.toBe(0);
    await expect(page.getByText('No plan yet.').count()).resolves.toBe(0);
    await expect(page.getByRole('tab').count()).resolves.toBe(0);
    release();
    await page.evaluate(() => (window as unknown as { openWebSockets(): void }).openWebSockets());
    await page.locator('[data-run-status="awaiting_approval"]').waitFor();
    await page.getByRole('button', { name: 'Approve', exact: true }).waitFor();
    await expect(unread.count()).resolves.toBe(0);
    await expect(page.locator('[data-step-id="join"]').count()).resolves.toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('says so for a run id the API does not know, instead of a run forever "planning"', async () => {
    const id = 'run_0123456789abcdef0123456789abcdef';
    const { page, errors } = await open(`/#/runs/${id}`);
    await page.getByRole('heading', { name: 'No such run' }).waitFor();
    await expect(page.locator('code.missing-id').textContent()).resolves.toBe(id);
    await expect(page.getByRole('button', { name: 'Cancel' }).count()).resolves.toBe(0);
    await expect(page.locator('[data-run-status]').count()).resolves.toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('fits a phone’s width: one column, the graph drawn, nothing wider than the screen', async () => {
    // Long ids, goals and values: nothing of them may widen a page past the screen.
    const longId = `step_${'x'.repeat(59)}`;
    const value = 'v'.repeat(400);
    const wide = {
      goal: `A goal long enough to wrap ${'and go on '.repeat(20)}`,
      steps: [
        { id: longId, action: 'demo.echo', parameters: { value } },
        { id: 'b', action: 'demo.echo', parameters: { got: `{{ steps.${longId}.output }}` } },
      ],
    };
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: wide,
      config: { execution_mode: 'parallel' },
    })) as { run_id: string };
    await waitForStatus(run_id, 'completed');
    const waiting = (await api('POST', '/v1/runs', {
      plan: wide,
      config: { require_plan_approval: true, approval: { webhook_url: env.hooks.url } },
    })) as { run_id: string };
    await waitForStatus(waiting.run_id, 'awaiting_approval');
    const link = await approvalLink(waiting.run_id);
    const page = await env.browser.newPage({ viewport: { width: 390, height: 844 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const pages: [string, string, string][] = [
      [`/#/runs/${run_id}`, '[data-step-id][data-status="completed"]', 'run-phone'],
      [`/#/runs/${run_id}/events`, 'ol.events li', 'run-phone-events'],
      [`/#/runs/${run_id}/timeline`, '.tl-row', 'run-phone-timeline'],
      ['/#/', 'table.runs', 'runs-phone'],
      [`${link.pathname}${link.search}`, 'table.plan-steps', 'approval-phone'],
    ];
    const widths: Record<string, number> = {};
    for (const [path, ready, name] of pages) {
      await page.goto(`${env.server.base}${path}`);
      await page.waitForSelector(ready);
      widths[name] = await page.evaluate(() => document.documentElement.scrollWidth);
      await shot(page, name);
    }
    expect(widths).toEqual({
      'run-phone': 390,
      'run-phone-events': 390,
      'run-phone-timeline': 390,
      'runs-phone': 390,
      'approval-phone': 390,
    });
    // The runs list: each row shows its id, status and goal on the screen.
    await page.goto(`${env.server.base}/#/`);
    const row = page.locator(`tr[data-run-id="${run_id}"]`);
    await row.waitFor();
    for (const part of ['a', '.badge', 'td.goal']) {
      const box = (await row.locator(part).first().boundingBox())!;
      expect([part, box.x >= 0 && box.x + box.width <= 390 && box.width > 0]).toEqual([part, true]);
    }
    // The event log: a row's type and step do not overlap.
    await page.goto(`${env.server.base}/#/runs/${run_id}/events`);
    const event = page.locator('ol.events li[data-event-type="ToolInvoked"]').first();
    await event.waitFor();
    const [type, step] = [
      (await event.locator('.type').boundingBox())!,
      (await event.locator('.step').boundingBox())!,
    ];
    const apart =
      type.x + type.width <= step.x ||
      step.x + step.width <= type.x ||
      type.y + type.height <= step.y ||
      step.y + step.height <= type.y;
    expect(apart).toBe(true);
    await page.goto(`${env.server.base}/#/runs/${run_id}`);
    const graph = await page.locator('.dag-scroll').boundingBox();
    expect(graph!.width).toBeGreaterThan(300);
    expect(graph!.height).toBeGreaterThan(60);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('draws the timeline’s tick labels on one line each, none overlapping, at a phone’s width', async () => {
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: parallel,
      config: { execution_mode: 'parallel' },
    })) as { run_id: string };
    await waitForStatus(run_id, 'completed');
    const page = await env.browser.newPage({ viewport: { width: 390, height: 844 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // The timeline's tick labels: one line each, none overlapping (they did at 390 px).
    await page.goto(`${env.server.base}/#/runs/${run_id}/timeline`);
    await page.waitForSelector('.tl-row');
    const ticks = await page.locator('.tl-axis span').evaluateAll((spans) =>
      spans.map((s) => {
        const r = s.getBoundingClientRect();
        return { left: r.left, right: r.right, height: r.height };
      }),
    );
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    expect(ticks.filter((t, i) => t.height > 16 || (i > 0 && t.left < ticks[i - 1]!.right))).toEqual([]);
    await shot(page, 'timeline-phone');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('lists each finding of a refused New run on a line of its own', async () => {
    const { page, errors } = await open('/#/new');
    const steps = Array.from({ length: 5 }, (_, i) => ({ id: `s${i}`, action: `no.such${i}` }));
    await page.locator('.plan-editor textarea').fill(JSON.stringify({ goal: 'five findings', steps }));
    await page.locator('.plan-editor .findings li').first().waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: 'Start run' }).click();
    const refusal = page.getByRole('alert');
    await refusal.locator('.findings li').first().waitFor({ timeout: 10_000 });
    const lines = await refusal.locator('.findings li').allInnerTexts();
    expect(lines).toHaveLength(5);
    expect(new Set(lines).size).toBe(5);
    // The headline says how many, and repeats none of them.
    await expect(refusal.locator('p.error').innerText()).resolves.toBe('invalid_plan: 5 findings');
    expect(lines.every((l, i) => l.includes(`no.such${i}`))).toBe(true);
    await shot(page, 'new-run-refused');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('lists runs, and shows the plan a pasted TEA workflow becomes', async () => {
    // A plan submitted without a goal: its row says so, where a blank cell read as not loaded yet.
    const { run_id: goalless } = (await api('POST', '/v1/runs', {
      plan: { steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] },
    })) as { run_id: string };
    const { page, errors } = await open('/#/');
    await page.waitForSelector('table.runs tbody tr');
    expect(await page.locator('table.runs tbody tr').count()).toBeGreaterThanOrEqual(4);
    await expect(page.locator(`tr[data-run-id="${goalless}"] td.goal`).innerText()).resolves.toBe('no goal');
    await shot(page, 'runs');
    await page.getByRole('link', { name: 'New run', exact: true }).first().click();
    const yaml = [
      'name: greet',
      'nodes:',
      '  - name: hello',
      '    uses: demo.echo',
      '    with:',
      '      value: hi',
      'edges:',
      '  - from: __start__',
      '    to: hello',
    ].join('\n');
    await page.locator('.plan-editor textarea').fill(yaml);
    // The YAML's own result: the sample plan's "✔ Valid (JSON plan)" is still there until it is checked.
    await page.locator('.plan-editor .ok', { hasText: 'TEA YAML' }).waitFor();
    await expect(page.locator('.plan-editor .check').innerText()).resolves.toMatch(/TEA YAML[\s\S]*hello/);
    await shot(page, 'new-run-tea');
    // LLMCompiler text with two problems: both listed, each with its line said once.
    const text = ['1. demo.sleep(100, "a")', '2. demo.nosuch(x=1)', '3. demo.echo(first=$9)', '4. join()'];
    await page.locator('.plan-editor textarea').fill(text.join('\n'));
    await page.waitForSelector('.plan-editor .findings li >> nth=1');
    const findings = await page.locator('.plan-editor .findings li').allInnerTexts();
    expect(findings).toEqual([
      'line 2 unknown_tool: unknown tool "demo.nosuch"',
      'line 3 bad_reference: step 3 refers to step 9, which does not come before it ($9)',
    ]);
    await shot(page, 'new-run-llmcompiler-findings');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('answers a human.input step from its form, and the answer flows on; it says who answered', async () => {
    const { run_id } = (await api('POST', '/v1/runs', { plan: askThenUse('ask a person') })) as {
      run_id: string;
    };
    await waitForStatus(run_id, 'awaiting_input');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    const form = page.getByRole('form', { name: 'Answer the run' });
    // The prompt arrives with the InputRequested event, which may follow the snapshot's status.
    await form.getByText('Which city?').waitFor({ timeout: 10_000 });
    await form.getByLabel(/^Your name/).fill('Ada Lovelace');
    await form.locator('textarea').fill('Oslo');
    await shot(page, 'human-input');
    await form.getByRole('button', { name: 'Send' }).click();
    await page.waitForSelector('[data-step-id="use"][data-status="completed"]', { timeout: 15_000 });
    const run = await waitForStatus(run_id, 'completed');
    expect((run.step_results as Json).use).toEqual({ city: 'Oslo' });
    // Who answered, recorded with the answer and shown where it is: the step's panel, the event log.
    await page.locator('svg.dag [data-step-id="ask"]').click();
    const panel = page.getByRole('complementary', { name: 'Step ask' });
    await expect(panel.locator('[data-answered-by]').innerText()).resolves.toBe('“Ada Lovelace”');
    await page.getByRole('tab', { name: 'Events' }).click();
    await expect(page.locator('ol.events').innerText()).resolves.toMatch(
      /answer: "Oslo" — answered by “Ada Lovelace” \(given without signing in\)/,
    );
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('rolls a run back to an earlier version from the versions tab', async () => {
    const gate = { id: 'gate', action: 'human.input', parameters: { prompt: 'Go?' } };
    const extra = { id: 'extra', action: 'demo.echo', parameters: { v: 1 }, dependencies: ['gate'] };
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: { goal: 'versions', steps: [gate, extra] },
      config: { require_plan_approval: true },
    })) as { run_id: string };
    await waitForStatus(run_id, 'awaiting_approval');
    await api('POST', `/v1/runs/${run_id}/approval`, {
      decision: 'modify',
      edits: [{ op: 'remove_step', step_id: 'extra' }],
    });
    await waitForStatus(run_id, 'awaiting_input');
    const { page, errors } = await open(`/#/runs/${run_id}/versions`);
    // Every version the page calls current from the click on, in order (it re-read the run from its
    // first event, passing through v1 and v2 again: a flicker, and a flaky read of the row).
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      new MutationObserver(() => {
        const now = document.querySelector('.versions tr.current td')?.textContent ?? '';
        if (now && seen.at(-1) !== now) seen.push(now);
      }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    await page.getByRole('button', { name: 'Roll back to v1' }).click();
    await page.waitForSelector('.versions tr.current >> text=v3');
    await expect(page.locator('.versions tr.current').innerText()).resolves.toMatch(/rollback to version 1/);
    // Its time as the API gives it, and said to be UTC (as the runs list's and the event log's are).
    await expect(page.getByRole('columnheader', { name: 'Created (UTC)' }).count()).resolves.toBe(1);
    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
    expect(seen.slice(seen.indexOf('v3'))).toEqual(['v3']);
    const run = await api('GET', `/v1/runs/${run_id}`);
    expect(run.plan_version).toBe(3);
    expect(Object.keys(run.steps as Json).sort()).toEqual(['extra', 'gate']);
    await shot(page, 'versions-rollback');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('offers only actions the API allows, and clears a refusal once a later action succeeds', async () => {
    // v1 is approved as v2, whose b fails: c is skipped behind it.
    const a = { id: 'a', action: 'demo.echo', parameters: { v: 1 } };
    const b = { id: 'b', action: 'demo.flaky', parameters: { fail_times: 9 }, dependencies: ['a'] };
    const c = { id: 'c', action: 'demo.echo', parameters: { got: '{{ steps.b.output }}' } };
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: { goal: 'fails after a modification', steps: [a] },
      config: { require_plan_approval: true, retry_failed_steps: 0 },
    })) as { run_id: string };
    await waitForStatus(run_id, 'awaiting_approval');
    await api('POST', `/v1/runs/${run_id}/approval`, {
      decision: 'modify',
      plan: { goal: 'fails after a modification', steps: [a, b, c] },
    });
    await waitForStatus(run_id, 'failed');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    // What it offers once it has read the run (until then it offers nothing).
    await page.waitForSelector('main.run-page[aria-busy="false"]');
    await page.click('svg.dag [data-step-id="c"]');
    const panel = page.getByRole('complementary', { name: 'Step c' });
    await panel.waitFor({ timeout: 10_000 });
    // c depends on b (inferred), which failed: the API would refuse a retry of c; b's is offered.
    // (Soft: each check stands for a fix of its own, and all are reported.)
    // The page has its snapshot (skip reasons, inferred dependencies): it has read the run up to it.
    const said = await panel.innerText();
    expect.soft(await panel.getByRole('button', { name: 'Retry', exact: true }).count()).toBe(0);
    expect.soft(await panel.getByRole('button', { name: 'Retry b' }).count()).toBe(1);
    expect.soft(said).toMatch(/depends on b, which failed/);
    expect
      .soft(await page.locator('.toolbar .muted').first().innerText())
      .toMatch(/^1\/3 steps completed · 1 failed · 1 skipped · v2/);
    // Its dependency on b comes from its reference: shown, marked as inferred.
    expect.soft(said).toMatch(/Depends on\s+b \(inferred\)/);
    // Why it was skipped, as the API says.
    const skipped = ((await api('GET', `/v1/runs/${run_id}`)).steps as Record<string, Json>).c!;
    expect(skipped.skip_reason).toBeTruthy();
    expect
      .soft(await panel.locator('[data-skip-reason]').getAttribute('data-skip-reason'))
      .toBe(skipped.skip_reason);
    await shot(page, 'step-skipped-behind-failure');

    // A rate limit asking for a minute is said at once, not waited out behind the click (the client
    // waits only a few seconds for a person); a refusal (409) is shown, then cleared by a rollback.
    let refused = 0;
    await page.route('**/v1/runs/*/retry', async (route) => {
      refused += 1;
      if (refused > 2) return route.fallback();
      await route.fulfill(
        refused === 1
          ? {
              status: 429,
              headers: { 'retry-after': '60' },
              contentType: 'application/json',
              body: JSON.stringify({
                error: { code: 'rate_limited', message: 'Too many requests for the test' },
              }),
            }
          : {
              status: 409,
              contentType: 'application/json',
              body: JSON.stringify({ error: { code: 'conflict', message: 'Refused for the test' } }),
            },
      );
    });
    await page.locator('.toolbar').getByRole('button', { name: 'Retry', exact: true }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Too many requests for the test' })
      .waitFor({ timeout: 10_000 });
    expect(refused).toBe(1);
    await page.locator('.toolbar').getByRole('button', { name: 'Retry', exact: true }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'Refused for the test' });
    await refusal.waitFor({ timeout: 10_000 });
    await page.getByRole('tab', { name: 'Versions' }).click();
    await page.getByRole('button', { name: 'Roll back to v1' }).click({ timeout: 10_000 });
    await page.waitForSelector('.versions tr.current >> text=v3', { timeout: 10_000 });
    await expect(refusal.count()).resolves.toBe(0);

    // A completed run cannot be rolled back: no Roll back on its versions.
    const done = (await api('POST', '/v1/runs', {
      plan: { goal: 'done', steps: [a] },
      config: { require_plan_approval: true },
    })) as { run_id: string };
    await waitForStatus(done.run_id, 'awaiting_approval');
    await api('POST', `/v1/runs/${done.run_id}/approval`, {
      decision: 'modify',
      plan: { goal: 'done', steps: [a, { id: 'a2', action: 'demo.echo', parameters: { v: 2 } }] },
    });
    await waitForStatus(done.run_id, 'completed');
    await page.goto(`${env.server.base}/#/runs/${done.run_id}/versions`);
    await page.waitForSelector('.versions tr.current >> text=v2');
    await expect(page.getByRole('button', { name: /Roll back/ }).count()).resolves.toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('follows a run over the WebSocket with an API token set, the token offered as a subprotocol; without it the page says where the token goes', async () => {
    const token = 'dash-token-1';
    const secured = (await startDevServer({
      name: 'dashboard-token',
      extraArgs: ['--var', `API_TOKEN:${token}`],
    })) as DevServer;
    try {
      const created = await fetch(`${secured.base}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          plan: parallel,
          config: { execution_mode: 'parallel', require_plan_approval: true },
        }),
      });
      const { run_id } = (await created.json()) as { run_id: string };
      const page = await env.browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.addInitScript((t) => localStorage.setItem('edgeplan.token', t), token);
      const sockets: string[] = [];
      const polls: string[] = [];
      page.on('websocket', (ws) => sockets.push(ws.url()));
      page.on('request', (r) => (r.url().includes('/events?') ? polls.push(r.url()) : undefined));
      await page.goto(`${secured.base}/#/runs/${run_id}`);
      // Its past read (a page), then followed live: approved once the page shows it waiting.
      await page.locator('[data-run-status="awaiting_approval"]').waitFor({ timeout: 15_000 });
      const past = await fetch(`${secured.base}/v1/runs/${run_id}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const { last_seq } = (await past.json()) as { last_seq: number };
      await fetch(`${secured.base}/v1/runs/${run_id}/approval`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ decision: 'approve' }),
      });
      await page.waitForSelector('[data-step-id="join"][data-status="completed"]', { timeout: 15_000 });
      expect(sockets).toEqual([
        `${secured.base.replace('http', 'ws')}/v1/runs/${run_id}/ws?after=${last_seq}`,
      ]);
      // The past's one page, and the check that nothing follows the end; the stream itself was the socket.
      expect(polls.filter((u) => !u.includes('limit=1&') && !u.endsWith('limit=1'))).toEqual([
        `${secured.base}/v1/runs/${run_id}/events?after=0&limit=1000`,
      ]);
      await page.close();

      // A person who opens the dashboard without the token is told where it goes, and entering it works.
      const fresh = await env.browser.newPage({ viewport: { width: 1400, height: 900 } });
      // The normal first visit logs nothing red in devtools: no request is sent only to be refused.
      const consoleErrors: string[] = [];
      const refused: string[] = [];
      fresh.on('console', (m) => (m.type() === 'error' ? consoleErrors.push(m.text()) : undefined));
      fresh.on('response', (r) => (r.status() === 401 ? refused.push(r.url()) : undefined));
      await fresh.goto(`${secured.base}/`);
      await fresh.getByText('this server needs an API token: enter its API_TOKEN in "API token"').waitFor();
      // A run's page without it says the run could not be read, and why — not "planning", "No plan yet."
      await fresh.goto(`${secured.base}/#/runs/${run_id}`);
      await fresh.getByText('this server needs an API token: enter its API_TOKEN in "API token"').waitFor();
      await expect(fresh.locator('[data-run-unread]').innerText()).resolves.toBe('the run could not be read');
      await expect(fresh.locator('[data-run-status]').count()).resolves.toBe(0);
      await expect(fresh.getByText('No plan yet.').count()).resolves.toBe(0);
      await shot(fresh, 'token-needed-run');
      expect(consoleErrors).toEqual([]);
      expect(refused).toEqual([]);
      await fresh.getByLabel('API token').fill('not-the-token');
      await fresh.getByLabel('API token').press('Enter');
      await fresh.getByText('this server does not accept the API token entered').waitFor();
      await fresh.getByLabel('API token').fill(token);
      await fresh.getByLabel('API token').press('Enter');
      await fresh.locator('[data-run-status="completed"]').waitFor();
      await expect(fresh.locator('[data-run-unread]').count()).resolves.toBe(0);
      await fresh.close();
    } finally {
      await secured.stop();
    }
  }, 90_000);
});
