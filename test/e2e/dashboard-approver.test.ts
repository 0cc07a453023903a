/**
 * The dashboard as a first-time approver meets it, in chromium against `wrangler dev`: what the page
 * shows after it read a run again is the run as read (its graph too, not the colours it last drew);
 * Escape closes what an action opened (Modify's editor, Delete's question), focus back on the button
 * that opened it. Screenshots go to test-results/screenshots/.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { holdableWebSockets, type Json } from './dashboard-helpers';
import { dashboardSetup } from './dashboard-setup';

const { env, api, waitForStatus, shot } = dashboardSetup('dashboard-approver');

const echo = (id: string, deps: string[] = []) => ({
  id,
  action: 'demo.echo',
  parameters: { id },
  dependencies: deps,
});
async function startRun(plan: unknown, config: Json = {}): Promise<string> {
  return ((await api('POST', '/v1/runs', { plan, config })) as { run_id: string }).run_id;
}
/** A page at 1280×800, with `init` run in it before its scripts. */
async function openPage(path: string, init?: () => void) {
  const page = await env.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  if (init) await page.addInitScript(init);
  await page.goto(`${env.server.base}${path}`);
  return { page, errors };
}
/** Every graph node's status, by step id. */
const nodeStatuses = (page: Page) =>
  page.$$eval('svg.dag [data-step-id]', (nodes) =>
    Object.fromEntries(nodes.map((n) => [n.getAttribute('data-step-id'), n.getAttribute('data-status')])),
  );
describe('the dashboard for a first-time approver', () => {
  it('draws the graph as the run read again has it after a refused Approve, its events held back', async () => {
    // Approved elsewhere, the run does `one` and waits at `ask` for an answer: a state that stays.
    const runId = await startRun(
      {
        goal: 'Redraw me',
        steps: [
          echo('one'),
          { id: 'ask', action: 'human.input', parameters: { prompt: 'Go on?' }, dependencies: ['one'] },
          echo('last', ['ask']),
        ],
      },
      { require_plan_approval: true },
    );
    await waitForStatus(runId, 'awaiting_approval');
    const { page, errors } = await openPage(`/#/runs/${runId}`, holdableWebSockets);
    const approve = page.getByRole('button', { name: 'Approve' });
    await approve.waitFor({ timeout: 15_000 });
    await expect(nodeStatuses(page)).resolves.toEqual({ one: 'pending', ask: 'pending', last: 'pending' });
    await page.evaluate(() => (window as unknown as { holdSockets: () => void }).holdSockets());
    await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' });
    const run = (await waitForStatus(runId, 'awaiting_input')) as {
      steps: Record<string, { status: string }>;
    };
    await approve.click();
    await page.getByRole('alert').waitFor({ timeout: 10_000 });
    await page.waitForSelector('[data-run-status="awaiting_input"]', { timeout: 10_000 });
    // No event can come (they are held): the graph is drawn from the run read again, at once.
    await expect(nodeStatuses(page)).resolves.toEqual({
      one: run.steps.one?.status,
      ask: run.steps.ask?.status,
      last: 'pending',
    });
    await expect(nodeStatuses(page).then((s) => s.one)).resolves.toBe('completed');
    await expect(page.locator('.step-counts').innerText()).resolves.toMatch(/^1\/3 steps completed/);
    // A node opened shows the step as read, too: done, not "not run yet" (its attempts' events are held).
    await page.locator('svg.dag [data-step-id="one"]').click();
    const panel = page.getByRole('complementary', { name: 'Step one' });
    await expect(panel.locator('h2 .badge').innerText()).resolves.toBe('completed');
    await expect(panel.innerText()).resolves.not.toMatch(/not run yet/i);
    await expect(panel.innerText()).resolves.toMatch(/still being read/);
    await shot(page, 'approver-reread-graph');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
