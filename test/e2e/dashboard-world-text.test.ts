/**
 * The world's text in the dashboard, in chromium against `wrangler dev`: a goal, a step's description
 * and an approver's comment in Hebrew or Arabic read right to left (`dir="auto"`: "!שלום" was drawn
 * with its "!" on the wrong side in the page's left-to-right flow), on the approval link's page, the
 * run page and the runs list; an emoji family is drawn whole, not as `👩[U+200D]👩[U+200D]👧`.
 */
import { describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { dashboardSetup } from './dashboard-setup';

const { env, api, waitForStatus, open, shot } = dashboardSetup('dashboard-world-text', { webhooks: true });

const FAMILY = '👩\u200D👩\u200D👧';
const GOAL = `שלום עולם! ${FAMILY}`;
const DESCRIPTION = 'اكتب التقرير، ثم أرسله.';
const direction = (l: Locator) => l.evaluate((el) => getComputedStyle(el).direction);

describe('the world’s text in the dashboard', { timeout: 90_000 }, () => {
  it('draws Hebrew and Arabic right to left and an emoji family whole, where an approver reads them', async () => {
    const plan = {
      goal: GOAL,
      steps: [{ id: 'write', description: DESCRIPTION, action: 'demo.echo', parameters: { x: 1 } }],
    };
    const { run_id: runId } = (await api('POST', '/v1/runs', {
      plan,
      config: { require_plan_approval: true, approval: { webhook_url: env.hooks.url } },
    })) as { run_id: string };
    await waitForStatus(runId, 'awaiting_approval');

    const link = await env.hooks.approvalLink(runId);
    const approval = await open(`${link.pathname}${link.search}`);
    const goal = approval.page.locator('p.goal');
    await expect.poll(() => goal.textContent(), { timeout: 15_000 }).toBe(GOAL);
    expect(await direction(goal)).toBe('rtl');
    await shot(approval.page, 'world-text-approval');
    await approval.page.close();

    const run = await open(`/#/runs/${runId}`);
    const title = run.page.locator('h1').first();
    await expect.poll(() => title.textContent(), { timeout: 15_000 }).toBe(GOAL);
    expect(await direction(title)).toBe('rtl');
    const description = run.page.locator('.description', { hasText: 'التقرير' }).first();
    expect(await direction(description)).toBe('rtl');
    await shot(run.page, 'world-text-run');
    expect(run.errors).toEqual([]);
    await run.page.close();

    const list = await open('/#/runs');
    const cell = list.page.locator('td.goal', { hasText: 'שלום' }).first();
    await expect.poll(() => cell.textContent(), { timeout: 15_000 }).toBe(GOAL);
    expect(await direction(cell)).toBe('rtl');
    await shot(list.page, 'world-text-runs');
    await list.page.close();
  });
});
