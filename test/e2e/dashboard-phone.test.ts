/**
 * The dashboard on a phone (390×844, touch) and a narrow tablet (768×1024), in chromium against
 * `wrangler dev`: no page scrolls sideways (the runs list, a run awaiting approval, the approval
 * link's page), and a person approves a plan by tapping Approve — a control a finger can hit (at
 * least 40 px tall) — on the run's page and on the link's page, the run then going on to the end.
 * A plan graph wider than the phone is shown whole by "Fit to width" (offered only when it is wider);
 * a run's error quoting a long unbroken key or URL wraps, at a phone's and a desktop's width. The
 * runs list on a phone says what its counts count ("1 step") and that times are UTC, and cuts a long
 * goal to three lines.
 * Screenshots go to test-results/screenshots/.
 */
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { SHOTS } from './dashboard-helpers';
import { dashboardSetup } from './dashboard-setup';

const { env, api, waitForStatus } = dashboardSetup('dashboard-phone', { webhooks: true });

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };
const TABLET = { viewport: { width: 768, height: 1024 }, isMobile: true, hasTouch: true };

/** A plan with a long goal and a reference (an inferred dependency), awaiting approval. */
async function runAwaitingApproval(goal: string): Promise<string> {
  const created = await api('POST', '/v1/runs', {
    plan: {
      goal,
      steps: [
        { id: 'build_release_candidate', action: 'demo.echo', parameters: { v: 1 } },
        {
          id: 'deploy_to_production',
          action: 'demo.echo',
          parameters: { got: '{{ steps.build_release_candidate.output }}' },
          dependencies: ['build_release_candidate'],
        },
      ],
    },
    config: { require_plan_approval: true, approval: { webhook_url: env.hooks.url } },
  });
  // Refused, the answer says why (a run id of undefined said nothing).
  expect(created.run_id, JSON.stringify(created)).toEqual(expect.any(String));
  const runId = created.run_id as string;
  await waitForStatus(runId, 'awaiting_approval');
  return runId;
}

/** How far the page is wider than its screen (0: it does not scroll sideways). */
const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Opens `path` in `context` and waits for `ready` to be drawn. */
async function openIn(context: BrowserContext, path: string, ready: string) {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${env.server.base}${path}`);
  await page.locator(ready).first().waitFor({ timeout: 15_000 });
  return { page, errors };
}

/** Approve as a finger finds it: on screen, at least 40 px tall and wide. */
async function expectTappable(button: Locator) {
  await expect(button.isVisible()).resolves.toBe(true);
  const box = await button.boundingBox();
  expect(box).not.toBeNull();
  expect(box?.height ?? 0).toBeGreaterThanOrEqual(40);
  expect(box?.width ?? 0).toBeGreaterThanOrEqual(40);
}

describe('the dashboard on a phone', () => {
  it('lists runs and shows a run awaiting approval without scrolling sideways; a tap on Approve approves', async () => {
    const runId = await runAwaitingApproval(
      'Deploy the new pricing page to production after checking the staging build and the canary',
    );
    const context = await env.browser.newContext(PHONE);
    const list = await openIn(context, '/#/', `a[href$="${runId}"]`);
    await expect(sidewaysOverflow(list.page)).resolves.toBe(0);
    await list.page.screenshot({ path: `${SHOTS}/phone-runs.png` });
    await list.page.locator(`a[href$="${runId}"]`).tap();

    const page = list.page;
    await page.locator('[data-step-id="deploy_to_production"]').waitFor({ timeout: 15_000 });
    await expect(sidewaysOverflow(page)).resolves.toBe(0);
    // The graph is wider than the phone: it scrolls in its box, and "Fit to width" shows all of it.
    const graph = page.locator('svg.dag');
    const box = page.locator('.dag-scroll');
    const widths = async (): Promise<[number, number]> => [
      (await graph.boundingBox())?.width ?? 0,
      (await box.boundingBox())?.width ?? 0,
    ];
    const [before, boxWidth] = await widths();
    expect(before).toBeGreaterThan(boxWidth);
    const fit = page.getByRole('button', { name: 'Fit to width' });
    await expectTappable(fit);
    await fit.tap();
    await page.getByRole('button', { name: 'Actual size' }).waitFor();
    const [after, boxAfter] = await widths();
    expect(after).toBeLessThanOrEqual(boxAfter);
    await expect(page.locator('[data-step-id="deploy_to_production"]').isVisible()).resolves.toBe(true);
    await expect(sidewaysOverflow(page)).resolves.toBe(0);
    const approve = page.getByRole('button', { name: 'Approve', exact: true });
    await expectTappable(approve);
    await page.screenshot({ path: `${SHOTS}/phone-run-awaiting-approval.png` });
    await approve.tap();
    await waitForStatus(runId, 'completed');
    await page.waitForSelector('[data-step-id="deploy_to_production"][data-status="completed"]', {
      timeout: 15_000,
    });
    await expect(sidewaysOverflow(page)).resolves.toBe(0);
    expect(list.errors).toEqual([]);
    await context.close();
  }, 90_000);

  it('lists a run as "1 step" with its time in UTC, and a long goal cut to three lines (whole in its title)', async () => {
    const goal = 'Reconcile every ledger of the quarter against the bank statements '.repeat(8).trim();
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: { goal, steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }] },
    })) as { run_id: string };
    const context = await env.browser.newContext(PHONE);
    const { page, errors } = await openIn(context, '/#/', `tr[data-run-id="${run_id}"]`);
    const row = page.locator(`tr[data-run-id="${run_id}"]`);
    // The columns' headings are hidden at this width: what a cell counts is said after it.
    const after = (cell: string) =>
      row.locator(cell).evaluate((el) => getComputedStyle(el, '::after').content);
    await expect(after('td.num')).resolves.toBe('" step"');
    await expect(after('td.created')).resolves.toBe('" UTC"');
    const cell = row.locator('td.goal');
    await expect(cell.getAttribute('title')).resolves.toBe(goal);
    const [height, line] = await cell.evaluate((el) => [
      el.getBoundingClientRect().height,
      parseFloat(getComputedStyle(el).lineHeight),
    ]);
    expect(height).toBeLessThanOrEqual(3 * line + 1);
    await expect(sidewaysOverflow(page)).resolves.toBe(0);
    await page.screenshot({ path: `${SHOTS}/phone-runs-long-goal.png` });
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('shows a tapped step’s details on screen, below a tall graph', async () => {
    const chunks = Array.from({ length: 12 }, (_, i) => ({
      id: `chunk_${i}`,
      action: 'demo.echo',
      parameters: { i },
      dependencies: ['fetch'],
    }));
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: {
        goal: 'Fan out over twelve chunks',
        steps: [{ id: 'fetch', action: 'demo.echo', parameters: { v: 1 } }, ...chunks],
      },
      config: { require_plan_approval: true },
    })) as { run_id: string };
    await waitForStatus(run_id, 'awaiting_approval');
    const context = await env.browser.newContext(PHONE);
    const { page, errors } = await openIn(context, `/#/runs/${run_id}`, '[data-step-id="chunk_0"]');
    await page.locator('[data-step-id="chunk_0"]').tap();
    const panel = page.getByRole('complementary', { name: 'Step chunk_0' });
    await panel.waitFor();
    // On screen: its top within the viewport (it scrolls there smoothly, so it is waited for).
    await page.waitForFunction(() => {
      const top = document.querySelector('.step-panel')?.getBoundingClientRect().top ?? Infinity;
      return top >= 0 && top < innerHeight * 0.6;
    });
    await expect(panel.isVisible()).resolves.toBe(true);
    await expect(sidewaysOverflow(page)).resolves.toBe(0);
    await page.screenshot({ path: `${SHOTS}/phone-step-tapped.png` });
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('wraps a failed run’s error holding a long unbroken word (a URL, a key) instead of widening the page', async () => {
    // A tool's error quotes what it was given: here a 200-character key (its most), no space in it.
    const key = `k${'z'.repeat(199)}`;
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: {
        goal: 'Import with a long key',
        steps: [{ id: 'load', action: 'demo.flaky', parameters: { fail_times: 5, key } }],
      },
      config: { retry_failed_steps: 0 },
    })) as { run_id: string };
    await waitForStatus(run_id, 'failed');
    for (const viewport of [PHONE, { viewport: { width: 1280, height: 800 } }]) {
      const context = await env.browser.newContext(viewport);
      const { page, errors } = await openIn(context, `/#/runs/${run_id}`, 'p.error');
      const error = page.locator('p.error');
      await expect(error.innerText()).resolves.toContain(key);
      await expect(sidewaysOverflow(page)).resolves.toBe(0);
      // Wrapped within the page: the whole error is on screen, none of it cut off at the right.
      const box = await error.boundingBox();
      expect(box?.width ?? Infinity).toBeLessThanOrEqual(viewport.viewport.width);
      await page.screenshot({ path: `${SHOTS}/long-error-${viewport.viewport.width}.png` });
      expect(errors).toEqual([]);
      await context.close();
    }
  }, 60_000);

  it('opens the approval link without scrolling sideways; a tap on Approve approves', async () => {
    const runId = await runAwaitingApproval('Rotate the signing keys of every production service');
    const link = await env.hooks.approvalLink(runId);
    const context = await env.browser.newContext(PHONE);
    const { page, errors } = await openIn(context, `${link.pathname}${link.search}`, 'main.approval');
    await expect(sidewaysOverflow(page)).resolves.toBe(0);
    const approve = page.getByRole('button', { name: 'Approve', exact: true });
    await expectTappable(approve);
    await page.screenshot({ path: `${SHOTS}/phone-approval-link.png` });
    await approve.tap();
    await expect(page.locator('[role="status"]').innerText()).resolves.toMatch(/Approved/);
    await waitForStatus(runId, 'completed');
    await expect(page.locator('.error').count()).resolves.toBe(0);
    await expect(sidewaysOverflow(page)).resolves.toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it('lists runs and shows a run on a narrow tablet without scrolling sideways', async () => {
    const runId = await runAwaitingApproval(
      'Summarise every open incident of the quarter and draft a report for the on-call review meeting',
    );
    const context = await env.browser.newContext(TABLET);
    const { page, errors } = await openIn(context, '/#/', `a[href$="${runId}"]`);
    await expect(sidewaysOverflow(page)).resolves.toBe(0);
    await page.screenshot({ path: `${SHOTS}/tablet-runs.png` });
    // Its run's page fits too, and a graph narrower than its box offers no "Fit to width".
    await page.locator(`a[href$="${runId}"]`).tap();
    await page.locator('[data-step-id="deploy_to_production"]').waitFor({ timeout: 15_000 });
    await expect(sidewaysOverflow(page)).resolves.toBe(0);
    await expectTappable(page.getByRole('button', { name: 'Approve', exact: true }));
    await expect(page.getByRole('button', { name: 'Fit to width' }).count()).resolves.toBe(0);
    await page.screenshot({ path: `${SHOTS}/tablet-run-awaiting-approval.png` });
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
